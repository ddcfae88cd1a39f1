#!/bin/sh
# Makes the fixtures of the jpx tests from page 1 of the sample vault's
# 2401.01234: a grey crop (gray.pgm) and a colour crop (rgb.ppm), each
# coded by opj_compress (libopenjp2-tools) with the options of its line
# below, and opj_decompress's decoding of each lossy one (NAME.ref.pgm or
# .ppm; lossy-poc is lossless, but opj_compress does not code all of it
# under a progression order change, so its reference is opj_decompress's
# too). Run from this directory.
set -e
pdf=../../../samplevault/vault/papers/2401.01234/2401.01234.pdf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pdftoppm -gray -r 100 -f 1 -l 1 "$pdf" "$tmp/g"
pdftoppm -r 100 -f 1 -l 1 "$pdf" "$tmp/c"
# pamcut (netpbm) would do; Python keeps the tools few.
python3 - "$tmp" <<'PY'
import sys
tmp = sys.argv[1]
def crop(src, dst, x, y, cw, ch):
    b = open(src, 'rb').read()
    m, w, h, mx, d = b.split(maxsplit=4)
    w, n = int(w), 3 if m == b'P6' else 1
    rows = [d[(r*w+x)*n:(r*w+x+cw)*n] for r in range(y, y+ch)]
    open(dst, 'wb').write(m + b'\n%d %d\n255\n' % (cw, ch) + b''.join(rows))
crop(tmp + '/g-1.pgm', 'gray.pgm', 60, 120, 192, 128)
crop(tmp + '/c-1.ppm', 'rgb.ppm', 60, 120, 128, 96)
# 16 bits a sample: each grey level spread over the range, bits flipped.
g = open('gray.pgm', 'rb').read()[-192*128:]
open('gray16.pgm', 'wb').write(b'P5\n192 128\n65535\n' + b''.join((v*257 ^ 0x1234).to_bytes(2, 'big') for v in g))
PY
while read -r name src ext opts; do
	# shellcheck disable=SC2086
	opj_compress -i "$src" -o "$name.$ext" $opts >/dev/null
	case "$name" in
	lossy-*) opj_decompress -i "$name.$ext" -o "$name.ref.${src##*.}" >/dev/null ;;
	esac
done <<'LIST'
lossless-default gray.pgm j2k
lossless-jp2 gray.pgm jp2
lossless-tiles gray.pgm j2k -t 64,48
lossless-offset gray.pgm j2k -d 3,5 -T 1,2 -t 50,40
lossless-lrcp gray.pgm j2k -p LRCP -r 20,10,1
lossless-rlcp gray.pgm j2k -p RLCP -r 20,10,1
lossless-rpcl gray.pgm j2k -p RPCL -c [64,64],[64,64],[32,32] -r 20,5,1
lossless-pcrl gray.pgm j2k -p PCRL -c [64,64],[64,64],[32,32] -n 3
lossless-cprl gray.pgm j2k -p CPRL -c [128,128],[64,64] -r 4,1
lossy-poc gray.pgm j2k -POC T1=0,0,1,2,1,CPRL/T1=0,0,1,6,1,LRCP
lossless-tileparts gray.pgm j2k -t 64,64 -TP R
lossless-layerparts gray.pgm j2k -r 10,1 -TP L -p LRCP
lossless-cb16 gray.pgm j2k -b 16,16
lossless-cb4x64 gray.pgm j2k -b 4,64
lossless-levels0 gray.pgm j2k -n 1
lossless-levels7 gray.pgm j2k -n 7
lossless-bypass gray.pgm j2k -M 1
lossless-reset gray.pgm j2k -M 2
lossless-termall gray.pgm j2k -M 4
lossless-vcausal gray.pgm j2k -M 8
lossless-predterm gray.pgm j2k -M 16
lossless-segsym gray.pgm j2k -M 32
lossless-allmodes gray.pgm j2k -M 63
lossless-bypass-layers gray.pgm j2k -M 1 -r 20,4,1
lossless-sop-eph gray.pgm j2k -SOP -EPH
lossless-plt-tlm gray.pgm j2k -PLT -TLM
lossless-roi gray.pgm j2k -ROI c=0,U=3
lossless-rgb rgb.ppm j2k
lossless-rgb-jp2 rgb.ppm jp2 -t 64,64 -p RPCL
lossless-16bit gray16.pgm j2k
lossless-subsampled rgb.ppm j2k -s 2,2
lossy-97 gray.pgm j2k -I -r 10
lossy-97-jp2 gray.pgm jp2 -I -r 20
lossy-53-rate gray.pgm j2k -r 8
lossy-97-tiles gray.pgm j2k -I -r 8 -t 100,70
lossy-97-cb32x8 gray.pgm j2k -I -r 6 -b 32,8
lossy-97-allmodes gray.pgm j2k -I -r 5 -M 63
lossy-97-layers gray.pgm j2k -I -r 40,10,4 -p RLCP
lossy-rgb-97 rgb.ppm jp2 -I -r 10
lossy-97-subsampled rgb.ppm j2k -I -r 5 -s 2,1 -p PCRL -c [32,32]
LIST
