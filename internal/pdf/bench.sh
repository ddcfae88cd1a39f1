#!/bin/sh
# Benchmarks the PDF text layer against pdftotext over the shared corpus:
#   sh internal/pdf/bench.sh [repetitions]
# Run from the module root. pdftotext (Debian poppler-utils) is installed
# when missing; it is a benchmark reference, not a dependency.
set -eu
reps=${1:-5}
if ! command -v pdftotext >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq poppler-utils
fi
bin=$(mktemp -d)/pdfbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./internal/cmd/pdfbench
GOMAXPROCS=1 "$bin" -dir ../shared/corpus/pdfs -reps "$reps"
