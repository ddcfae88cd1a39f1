#!/usr/bin/env bash
# Regenerates the held-out citing-sentence fixtures: two-column papers in
# class files and BibTeX styles that the fixtures of ../cites do not use,
# written the same way (see ../cites/make.sh) and kept apart so that no rule
# is tuned on them. This folder holds refs.bib of ../styles (20 entries);
# ../heldout-many holds a bibliography of 60 entries (its refs.bib: the 20
# of ../styles and 40 more) in a small font, as IEEE and ACM proceedings
# set it. Each folder's truth-*.json is written here too. Needs pdflatex,
# bibtex, natbib, amscls, koma-script, lmodern and the bst files of
# texlive-bibtex-extra. The PDFs are committed; tests never run this.
set -euo pipefail
cd "$(dirname "$0")"
export SOURCE_DATE_EPOCH=1796083200 FORCE_SOURCE_DATE=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# words: the n-th sentence's own word, one per sentence; none contains another.
words() {
	local n=$1 out=() a b
	for a in b c d f g h j k l m n p r s t v w z; do
		for b in a e i o u; do
			out+=("zq$a$b")
		done
	done
	printf '%s\n' "${out[@]:0:n}"
}
# body N NAT: N single citations, then lists of three; writes body.tex and truth.json.
body() {
	local n=$1 nat=$2 out="" truth="" lists=$(($1 / 5))
	mapfile -t ws < <(words $((n + lists)))
	for i in $(seq 0 $((n - 1))); do
		local a=${ws[$i]} k=a$((i + 1))
		if [ "$nat" = yes ] && [ $((i % 3)) = 0 ]; then
			out+="As \\citet{$k} report, the $a result holds for long documents and short ones alike. "
		else
			out+="The $a result follows the method of \\cite{$k}, which we extend to long documents. "
		fi
		truth+="\"$a\": [\"$k\"], "
		if [ $((i % 5)) = 4 ]; then out+=$'\n\n'; fi
	done
	for j in $(seq 0 $((lists - 1))); do
		local a=${ws[$((n + j))]} k1=a$((j * 5 + 1)) k2=a$((j * 5 + 2)) k3=a$((j * 5 + 3))
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
# fixture DIR NAME CLASS-OPTIONS CLASS BST NAT BIBSIZE
fixture() {
	local dir=$1 name=$2 opts=$3 class=$4 bst=$5 nat=$6 size=$7 natbib="" n
	n=$(grep -c '^@' "$dir/refs.bib" 2>/dev/null || grep -c '^@' ../styles/refs.bib)
	[ "$nat" = yes ] && natbib='\usepackage{natbib}'
	if [ -f "$dir/refs.bib" ]; then cp "$dir/refs.bib" "$work/refs.bib"; else cp ../styles/refs.bib "$work/refs.bib"; fi
	body "$n" "$nat"
	cp "$work/truth.json" "$dir/truth-$nat.json"
	local top='\title{A Test Paper on Citations}\author{Test Author}\date{30 November 2026}'
	cat >"$work/$name.tex" <<TEX
\documentclass[$opts]{$class}
\usepackage[utf8]{inputenc}\usepackage[T1]{fontenc}\usepackage{lmodern}$natbib
$top
\begin{document}\maketitle
\section{Introduction} This paper cites every entry of its bibliography in its body.
\input{body}
\section{Conclusion} Nothing more is cited here.
{$size\bibliographystyle{$bst}\bibliography{refs}}
\end{document}
TEX
	(cd "$work" && for step in pdflatex bibtex pdflatex pdflatex; do
		if [ $step = bibtex ]; then bibtex "$name"; else pdflatex -interaction=batchmode "$name"; fi >/dev/null || true
	done)
	cp "$work/$name.pdf" "$dir/"
}
fixture . amsart-amsalpha-two twocolumn amsart amsalpha no ''
fixture . amsart-amsplain-two twocolumn amsart amsplain no ''
fixture . koma-besjournalsnat-two twocolumn scrartcl besjournals yes ''
fixture . chicagonat-two twocolumn,11pt article chicago yes '\small'
fixture ../heldout-many ieeetr-many-two twocolumn,10pt article ieeetr no '\footnotesize'
fixture ../heldout-many cellnat-many-two twocolumn,10pt article cell yes '\footnotesize'
