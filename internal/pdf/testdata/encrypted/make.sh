#!/bin/sh
# Regenerates the encrypted fixtures of this folder from ../simple.pdf
# with qpdf (https://qpdf.sourceforge.io), one file per revision of the
# standard security handler and cipher: an empty user password (they
# open, as in viewers) and, for two of them, a user password (they stay
# refused). Run from this folder: sh make.sh
set -e
src=../simple.pdf
weak=--allow-weak-crypto
qpdf --static-id $weak --encrypt "" owner 40 -- $src r2-rc4-40.pdf
qpdf --static-id $weak --encrypt "" owner 128 --use-aes=n -- $src r3-rc4-128.pdf
qpdf --static-id $weak --encrypt "" owner 128 --use-aes=n --force-V4 -- $src r4-rc4-128.pdf
qpdf --static-id --encrypt "" owner 128 --use-aes=y -- $src r4-aes-128.pdf
qpdf --static-id --encrypt "" owner 256 --force-R5 -- $src r5-aes-256.pdf
qpdf --static-id --encrypt "" owner 256 -- $src r6-aes-256.pdf
qpdf --static-id --object-streams=generate --encrypt "" owner 256 -- $src r6-aes-256-objstm.pdf
qpdf --static-id $weak --encrypt user owner 40 -- $src user-r2-rc4-40.pdf
qpdf --static-id --encrypt user owner 256 -- $src user-r6-aes-256.pdf
