package textnorm

// stopwords are frequent English function words that carry little meaning
// for ranking. The list is short on purpose: words such as "not", "no" and
// "increase" matter in scientific claims and stay searchable.
var stopwords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at",
		"be", "been", "being", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "during", "each", "for", "from",
		"had", "has", "have", "having", "he", "her", "here", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself",
		"may", "might", "more", "most", "must", "of", "on", "or", "other", "our",
		"over", "she", "should", "so", "some", "such",
		"than", "that", "the", "their", "them", "then", "there", "these", "they",
		"this", "those", "through", "to", "under", "upon",
		"was", "we", "were", "what", "when", "where", "which", "while", "who",
		"whom", "why", "will", "with", "within", "would", "you", "your",
	} {
		stopwords[w] = true
	}
}

// Stopword reports whether the folded, unstemmed word w is an English
// stopword.
func Stopword(w string) bool { return stopwords[w] }
