package textnorm

import (
	"sort"
	"sync"
)

// stemCache remembers recent stems: text repeats its words, and the
// algorithm costs more than a map lookup.
var stemCache = cache{m: make(map[string]string)}

const cacheSize = 1 << 16

// cache is a bounded string map safe for concurrent use: when full it
// starts over.
type cache struct {
	mu sync.RWMutex
	m  map[string]string
}

func (c *cache) get(k string) (string, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

// getBytes is get with the key's bytes, which it does not copy.
func (c *cache) getBytes(k []byte) (string, bool) {
	c.mu.RLock()
	v, ok := c.m[string(k)]
	c.mu.RUnlock()
	return v, ok
}

func (c *cache) put(k, v string) {
	c.mu.Lock()
	if len(c.m) >= cacheSize {
		clear(c.m)
	}
	c.m[k] = v
	c.mu.Unlock()
}

// Stem reduces an English word to its stem with the rules of M. F. Porter's
// 1980 suffix-stripping algorithm ("connection", "connected" and
// "connecting" all give "connect"). Words that are not all lower-case ASCII
// letters, and words of one or two letters, are returned unchanged. The
// stem of a word is never empty and starts with the word's first letter:
// the rules only rewrite its end.
func Stem(w string) string {
	if len(w) <= 2 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	if st, ok := stemCache.get(w); ok {
		return st
	}
	st := stem(w)
	stemCache.put(w, st)
	return st
}

// stemBytes returns Stem(string(w)) and Stopword(string(w)), without
// copying w into a string of its own when its stem is known.
func stemBytes(w []byte) (term string, stop bool) {
	stop = stopwords[string(w)]
	if len(w) > 2 && isLowerLetters(w) {
		if st, ok := stemCache.getBytes(w); ok {
			return st, stop
		}
	}
	return Stem(string(w)), stop
}

// isLowerLetters reports whether w is all lower-case ASCII letters.
func isLowerLetters(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// stem runs the algorithm on a lower-case ASCII word.
func stem(w string) string {
	s := stemmer{b: []byte(w)}
	s.step1a()
	s.step1b()
	s.step1c()
	s.replace(step2, 0)
	s.replace(step3, 0)
	s.step4()
	s.step5()
	return string(s.b)
}

// stemmer holds the word being stemmed.
type stemmer struct{ b []byte }

// cons reports whether b[i] is a consonant: not a vowel, and a 'y' only
// when it follows a vowel or starts the word.
func (s *stemmer) cons(i int) bool {
	switch s.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !s.cons(i-1)
	}
	return true
}

// measure returns m, the number of vowel-consonant sequences in b[:n]
// when it is written [C](VC)^m[V].
func (s *stemmer) measure(n int) int {
	i := 0
	for i < n && s.cons(i) {
		i++
	}
	m := 0
	for i < n {
		for i < n && !s.cons(i) {
			i++
		}
		if i >= n {
			break
		}
		for i < n && s.cons(i) {
			i++
		}
		m++
	}
	return m
}

// hasVowel reports whether b[:n] contains a vowel.
func (s *stemmer) hasVowel(n int) bool {
	for i := 0; i < n; i++ {
		if !s.cons(i) {
			return true
		}
	}
	return false
}

// doubleCons reports whether b[:n] ends with a doubled consonant.
func (s *stemmer) doubleCons(n int) bool {
	return n >= 2 && s.b[n-1] == s.b[n-2] && s.cons(n-1)
}

// cvc reports whether b[:n] ends consonant-vowel-consonant with the last
// consonant not w, x or y (as in "hop", not "snow").
func (s *stemmer) cvc(n int) bool {
	if n < 3 || !s.cons(n-1) || s.cons(n-2) || !s.cons(n-3) {
		return false
	}
	c := s.b[n-1]
	return c != 'w' && c != 'x' && c != 'y'
}

func (s *stemmer) ends(suf string) bool {
	n := len(s.b)
	return n >= len(suf) && string(s.b[n-len(suf):]) == suf
}

// set replaces the last k bytes by r.
func (s *stemmer) set(k int, r string) {
	s.b = append(s.b[:len(s.b)-k], r...)
}

func (s *stemmer) step1a() {
	switch {
	case s.ends("sses"), s.ends("ies"):
		s.set(2, "")
	case s.ends("ss"):
	case s.ends("s"):
		s.set(1, "")
	}
}

func (s *stemmer) step1b() {
	n := len(s.b)
	cut := 0
	switch {
	case s.ends("eed"):
		if s.measure(n-3) > 0 {
			s.set(1, "")
		}
		return
	case s.ends("ed") && s.hasVowel(n-2):
		cut = 2
	case s.ends("ing") && s.hasVowel(n-3):
		cut = 3
	default:
		return
	}
	s.set(cut, "")
	n = len(s.b)
	switch {
	case s.ends("at"), s.ends("bl"), s.ends("iz"):
		s.set(0, "e")
	case s.doubleCons(n) && !s.ends("l") && !s.ends("s") && !s.ends("z"):
		s.set(1, "")
	case s.measure(n) == 1 && s.cvc(n):
		s.set(0, "e")
	}
}

func (s *stemmer) step1c() {
	if s.ends("y") && s.hasVowel(len(s.b)-1) {
		s.set(1, "i")
	}
}

// rule replaces suffix from by to.
type rule struct{ from, to string }

// byLength sorts rules longest suffix first, so the first rule whose
// suffix matches is the longest match, as the algorithm requires.
func byLength(rs []rule) []rule {
	sort.SliceStable(rs, func(i, j int) bool { return len(rs[i].from) > len(rs[j].from) })
	return rs
}

var step2 = byLength([]rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"},
	{"izer", "ize"}, {"abli", "able"}, {"alli", "al"}, {"entli", "ent"},
	{"eli", "e"}, {"ousli", "ous"}, {"ization", "ize"}, {"ation", "ate"},
	{"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"},
	{"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"},
})

var step3 = byLength([]rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ful", ""}, {"ness", ""},
})

var step4 = byLength([]rule{
	{"al", ""}, {"ance", ""}, {"ence", ""}, {"er", ""}, {"ic", ""}, {"able", ""},
	{"ible", ""}, {"ant", ""}, {"ement", ""}, {"ment", ""}, {"ent", ""},
	{"ion", ""}, {"ou", ""}, {"ism", ""}, {"ate", ""}, {"iti", ""}, {"ous", ""},
	{"ive", ""}, {"ize", ""},
})

// replace applies the longest matching rule of rs when the stem before the
// suffix has a measure above min; a failed condition ends the step.
func (s *stemmer) replace(rs []rule, min int) bool {
	for _, r := range rs {
		if s.ends(r.from) {
			if s.measure(len(s.b)-len(r.from)) > min {
				s.set(len(r.from), r.to)
				return true
			}
			return false
		}
	}
	return false
}

func (s *stemmer) step4() {
	if s.ends("ion") {
		// "ion" goes only after s or t, and is the longest step-4 suffix
		// ending in "ion".
		n := len(s.b) - 3
		if n > 0 && (s.b[n-1] == 's' || s.b[n-1] == 't') && s.measure(n) > 1 {
			s.set(3, "")
		}
		return
	}
	s.replace(step4, 1)
}

func (s *stemmer) step5() {
	n := len(s.b)
	if s.ends("e") {
		m := s.measure(n - 1)
		if m > 1 || (m == 1 && !s.cvc(n-1)) {
			s.set(1, "")
		}
	}
	n = len(s.b)
	if s.measure(n) > 1 && s.doubleCons(n) && s.ends("l") {
		s.set(1, "")
	}
}
