package jpx

// idwt2 runs one level of the 2-D inverse wavelet transform (T.800
// F.3.2) over the top-left rw×rh of a (stride wide): the low-pass
// samples of each row are its first lw, of each column its first lh;
// px, py are the parities of the resolution's first column and row.
func idwt2[T int32 | float32](a []T, stride, rw, rh, lw, lh, px, py int, lift func([]T, int)) {
	buf := make([]T, max(rw, rh))
	for y := range rh {
		row := a[y*stride : y*stride+rw]
		interleave(buf[:rw], row, lw, px)
		lift(buf[:rw], px)
		copy(row, buf[:rw])
	}
	col := make([]T, rh)
	for x := range rw {
		for y := range rh {
			col[y] = a[y*stride+x]
		}
		interleave(buf[:rh], col, lh, py)
		lift(buf[:rh], py)
		for y := range rh {
			a[y*stride+x] = buf[y]
		}
	}
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
		var l, r int32
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
		x[j] -= (l + r + 2) >> 2
	}
	for j := 1 - par; j < n; j += 2 {
		var l, r int32
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
			var l, r float32
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
			x[j] -= c * (l + r)
		}
	}
	step(par, delta97)
	step(1-par, gamma97)
	step(par, beta97)
	step(1-par, alpha97)
}
