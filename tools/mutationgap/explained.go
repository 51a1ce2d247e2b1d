package main

import "strings"

// codeSpans returns the text of every code span in markdown: a run of backticks, the text, and
// a run of as many backticks, on one line. As in CommonMark, one space is stripped from both
// ends when both are there. A span fenced by two backticks can hold one.
func codeSpans(markdown string) []string {
	var spans []string
	for _, line := range strings.Split(markdown, "\n") {
		for {
			open := strings.IndexByte(line, '`')
			if open < 0 {
				break
			}
			n := len(line[open:]) - len(strings.TrimLeft(line[open:], "`"))
			fence := line[open : open+n]
			rest := line[open+n:]
			end := closing(rest, fence)
			if end < 0 {
				line = rest
				continue
			}
			span := rest[:end]
			if len(span) > 1 && span[0] == ' ' && span[len(span)-1] == ' ' {
				span = span[1 : len(span)-1]
			}
			spans = append(spans, span)
			line = rest[end+n:]
		}
	}
	return spans
}

// closing returns where in s a run of backticks exactly as long as fence starts, or -1.
func closing(s, fence string) int {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '`')
		if j < 0 {
			return -1
		}
		i += j
		n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
		if n == len(fence) {
			return i
		}
		i += n
	}
	return -1
}

// explanations returns the code spans of markdown that name a mutant of pkg: those that open
// with "PKG/" and hold ".go:". Each names one mutant by its whole key, since a gap is explained
// only by its own key: a span that names no gap is stale, so that no span can stand for a group.
func explanations(markdown, pkg string) map[string]bool {
	out := map[string]bool{}
	for _, s := range codeSpans(markdown) {
		if strings.HasPrefix(s, pkg+"/") && strings.Contains(s, ".go:") {
			out[s] = true
		}
	}
	return out
}
