#!/usr/bin/env bash
# Regenerates the citing-sentence fixtures: the bibliography of
# ../styles/refs.bib typeset with each BibTeX style, in one and two
# columns, after a body whose sentences cite its entries (one work, a list
# of three, and for the natbib styles textual and parenthetical author–year
# citations). Each sentence names one animal, so a sentence found for an
# entry is checked against truth.json, which this script writes too: for
# each animal, the keys its sentence cites. Needs pdflatex, bibtex, natbib
# and lmodern (Debian: texlive-latex-base, texlive-latex-recommended,
# texlive-bibtex-extra). The PDFs are committed; tests never run this.
set -euo pipefail
cd "$(dirname "$0")"
export SOURCE_DATE_EPOCH=1796083200 FORCE_SOURCE_DATE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp ../styles/refs.bib "$work/"
animals=(otter badger heron lynx walrus gecko marmot ibis tapir quokka
	narwhal okapi puffin dingo ferret jackal lemur magpie newt oriole
	pelican raven stoat toucan vole wombat yak zebu bison camel)
# Single citations: the i-th animal cites a(i+1).
body() {
	local nat=$1 out="" truth=""
	for i in $(seq 0 19); do
		local a=${animals[$i]} k=a$((i + 1))
		if [ "$nat" = yes ] && [ $((i % 3)) = 0 ]; then
			out+="As \\citet{$k} report, the $a result holds for long documents and short ones alike. "
		else
			out+="The $a result follows the method of \\cite{$k}, which we extend to long documents. "
		fi
		truth+="\"$a\": [\"$k\"], "
		if [ $((i % 5)) = 4 ]; then out+=$'\n\n'; fi
	done
	# Lists of three consecutive works.
	for j in 0 1 2 3; do
		local a=${animals[$((20 + j))]} k1=a$((j * 5 + 1)) k2=a$((j * 5 + 2)) k3=a$((j * 5 + 3))
		if [ "$nat" = yes ]; then
			out+="The $a view is shared by several works \\citep{$k1,$k2,$k3}. "
		else
			out+="The $a view is shared by several works \\cite{$k1,$k2,$k3}. "
		fi
		truth+="\"$a\": [\"$k1\", \"$k2\", \"$k3\"], "
	done
	printf '%s' "$out" >"$work/body.tex"
	printf '{%s}\n' "${truth%, }" >"$work/truth.json"
}
for style in plain unsrt alpha abbrv ieeetr apalike acm siam plainnat abbrvnat unsrtnat; do
	natbib="" nat=no
	case $style in *nat) natbib='\usepackage{natbib}' nat=yes ;; esac
	body $nat
	cp "$work/truth.json" "truth-$nat.json"
	for cols in one two; do
		opt=""
		[ "$cols" = two ] && opt=twocolumn
		name=$style-$cols
		cat >"$work/$name.tex" <<TEX
\documentclass[$opt]{article}
\usepackage[utf8]{inputenc}\usepackage[T1]{fontenc}\usepackage{lmodern}$natbib
\title{A Test Paper on Citations}\author{Test Author}\date{30 November 2026}
\begin{document}\maketitle
\section{Introduction} This paper cites every entry of its bibliography in its body.
\input{body}
\section{Conclusion} Nothing more is cited here.
\bibliographystyle{$style}\bibliography{refs}
\end{document}
TEX
		(cd "$work" && for step in pdflatex bibtex pdflatex pdflatex; do
			if [ $step = bibtex ]; then bibtex "$name"; else pdflatex -interaction=batchmode "$name"; fi >/dev/null || true
		done)
		cp "$work/$name.pdf" .
	done
done
