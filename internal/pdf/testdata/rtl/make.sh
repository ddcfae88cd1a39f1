#!/bin/sh
# Regenerates rtl.pdf from rtl.html with Chromium (headless), which
# shapes the Arabic with the DejaVu Sans font (fonts-dejavu) and draws
# each line in visual order. Run from this folder: sh make.sh
set -e
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer --print-to-pdf=rtl.pdf rtl.html
