#!/usr/bin/env bash
# Regenerates the bibliography-style fixtures: refs.bib typeset with each
# BibTeX style, in one and two columns, in Latin Modern (Type 1 fonts).
# Needs pdflatex, bibtex, natbib and lmodern (Debian: texlive-latex-base,
# texlive-latex-recommended, texlive-bibtex-extra). The PDFs are committed;
# tests never run this.
set -euo pipefail
cd "$(dirname "$0")"
# The same PDFs byte for byte on every run: pdfTeX takes its dates and
# document ID from these.
export SOURCE_DATE_EPOCH=1796083200 FORCE_SOURCE_DATE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp refs.bib "$work/"
for style in plain unsrt alpha abbrv ieeetr apalike acm siam plainnat abbrvnat unsrtnat; do
	natbib=""
	case $style in *nat) natbib='\usepackage{natbib}' ;; esac
	for cols in one two; do
		opt=""
		[ "$cols" = two ] && opt=twocolumn
		name=$style-$cols
		cat >"$work/$name.tex" <<TEX
\documentclass[$opt]{article}
\usepackage[utf8]{inputenc}\usepackage[T1]{fontenc}\usepackage{lmodern}$natbib
\title{A Test Paper on References}\author{Test Author}\date{30 November 2026}
\begin{document}\maketitle
\section{Introduction} This paper cites everything in its bibliography. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.
\nocite{*}
\bibliographystyle{$style}\bibliography{refs}
\end{document}
TEX
		# pdflatex and bibtex exit non-zero on warnings (an author-year
		# style without natbib); the PDF and its log say what happened.
		(cd "$work" && for step in pdflatex bibtex pdflatex pdflatex; do
			if [ $step = bibtex ]; then bibtex "$name"; else pdflatex -interaction=batchmode "$name"; fi >/dev/null || true
		done)
		cp "$work/$name.pdf" .
	done
done
