package jpx

// idwt2 runs one level of the 2-D inverse wavelet transform (T.800
// F.3.2) over the top-left rw×rh of a (stride wide): the low-pass
// samples of each row are its first lw, of each column its first lh;
// px, py are the parities of the resolution's first column and row. The
// columns are transformed a row at a time, all of a row's columns at
// once, for the cache.
func idwt2[T int32 | float32](a []T, stride, rw, rh, lw, lh, px, py int, lift func([]T, int), liftRows func([]T, int, int, int)) {
	buf := make([]T, rw)
	for y := range rh {
		row := a[y*stride : y*stride+rw]
		interleave(buf, row, lw, px)
		lift(buf, px)
		copy(row, buf)
	}
	if rh < 2 && py == 0 {
		return
	}
	// The columns go a strip at a time through a buffer of strip rows.
	const strip = 64
	tmp := make([]T, min(rw, strip)*rh)
	for x0 := 0; x0 < rw; x0 += strip {
		sw := min(strip, rw-x0)
		for y := range rh {
			k := 2*y + py
			if y >= lh {
				k = 2*(y-lh) + 1 - py
			}
			copy(tmp[k*sw:(k+1)*sw], a[y*stride+x0:y*stride+x0+sw])
		}
		liftRows(tmp[:sw*rh], sw, rh, py)
		for y := range rh {
			copy(a[y*stride+x0:y*stride+x0+sw], tmp[y*sw:(y+1)*sw])
		}
	}
}

// rowsOf returns rows j-1 and j+1 of x (rows of w), reflected at the
// edges of its n rows.
func rowsOf[T int32 | float32](x []T, w, n, j int) (l, r []T) {
	jl, jr := mirror(j-1, n), mirror(j+1, n)
	return x[jl*w : (jl+1)*w], x[jr*w : (jr+1)*w]
}

// liftRows53 is lift53 down the columns of x, n rows of w.
func liftRows53(x []int32, w, n, par int) {
	if n == 1 {
		if par == 1 {
			for i := range x[:w] {
				x[i] /= 2
			}
		}
		return
	}
	for j := par; j < n; j += 2 {
		l, r := rowsOf(x, w, n, j)
		row := x[j*w : (j+1)*w]
		for i := range row {
			row[i] -= (l[i] + r[i] + 2) >> 2
		}
	}
	for j := 1 - par; j < n; j += 2 {
		l, r := rowsOf(x, w, n, j)
		row := x[j*w : (j+1)*w]
		for i := range row {
			row[i] += (l[i] + r[i]) >> 1
		}
	}
}

// liftRows97 is lift97 down the columns of x, n rows of w.
func liftRows97(x []float32, w, n, par int) {
	if n == 1 {
		if par == 1 {
			for i := range x[:w] {
				x[i] /= 2
			}
		}
		return
	}
	for j := range n {
		row := x[j*w : (j+1)*w]
		k := float32(k97)
		if (j+par)%2 == 1 {
			k = 1 / k97
		}
		for i := range row {
			row[i] *= k
		}
	}
	step := func(start int, c float32) {
		for j := start; j < n; j += 2 {
			l, r := rowsOf(x, w, n, j)
			row := x[j*w : (j+1)*w]
			for i := range row {
				row[i] -= c * (l[i] + r[i])
			}
		}
	}
	step(par, delta97)
	step(1-par, gamma97)
	step(par, beta97)
	step(1-par, alpha97)
}

// interleave puts the n low-pass samples at the start of src and the
// high-pass ones after them in their places in dst: the low-pass ones at
// the even positions of the signal, which starts at parity par.
func interleave[T int32 | float32](dst, src []T, n, par int) {
	lo, hi := src[:n], src[n:]
	for i, v := range lo {
		dst[2*i+par] = v
	}
	for i, v := range hi {
		dst[2*i+1-par] = v
	}
}

// mirror reflects index j into 0..n-1 (whole-sample symmetric
// extension).
func mirror(j, n int) int {
	for j < 0 || j >= n {
		if j < 0 {
			j = -j
		}
		if j >= n {
			j = 2*(n-1) - j
		}
	}
	return j
}

// neighbours returns the samples either side of x[j], mirrored at the
// ends of x (symmetric extension).
func neighbours[T int32 | float32](x []T, j int) (l, r T) {
	n := len(x)
	if j-1 >= 0 {
		l = x[j-1]
	} else {
		l = x[mirror(j-1, n)]
	}
	if j+1 < n {
		r = x[j+1]
	} else {
		r = x[mirror(j+1, n)]
	}
	return l, r
}

// lift53 is the reversible 5/3 synthesis of x, its first sample at
// parity par.
func lift53(x []int32, par int) {
	n := len(x)
	if n == 1 {
		if par == 1 {
			x[0] /= 2
		}
		return
	}
	for j := par; j < n; j += 2 {
		l, r := neighbours(x, j)
		x[j] -= (l + r + 2) >> 2
	}
	for j := 1 - par; j < n; j += 2 {
		l, r := neighbours(x, j)
		x[j] += (l + r) >> 1
	}
}

// The 9/7 lifting constants (T.800 Table F.4).
const (
	alpha97 = -1.586134342
	beta97  = -0.052980118
	gamma97 = 0.882911075
	delta97 = 0.443506852
	k97     = 1.230174105
)

// lift97 is the irreversible 9/7 synthesis of x, its first sample at
// parity par.
func lift97(x []float32, par int) {
	n := len(x)
	if n == 1 {
		if par == 1 {
			x[0] /= 2
		}
		return
	}
	for j := par; j < n; j += 2 {
		x[j] *= k97
	}
	for j := 1 - par; j < n; j += 2 {
		x[j] *= 1 / k97
	}
	step := func(start int, c float32) {
		for j := start; j < n; j += 2 {
			l, r := neighbours(x, j)
			x[j] -= c * (l + r)
		}
	}
	step(par, delta97)
	step(1-par, gamma97)
	step(par, beta97)
	step(1-par, alpha97)
}
