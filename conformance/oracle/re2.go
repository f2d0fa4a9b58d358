package main

// RE2 patterns: JobSet's onJobFailureMessagePatterns are Go regexps (regexp.MatchString in the
// controller's failure-policy step; a pattern that does not compile is logged and skipped).
// restartkit parses them as Go does and matches them with regex-lite (core/src/eval/jobset_re2.rs). This leg
// drives the same controller code as jobsetFailurePolicy with one rule whose only selector is a
// random pattern, and one failed Job whose message is a random text, so whether the rule
// matched is Go's regexp against restartkit's translation, compile errors included.

import "strings"

// Where Go and Rust differ: ASCII Perl classes, Unicode case folding (k, K, the Kelvin sign;
// s, S, the long s; the three sigmas), Unicode names Go has and has not, and syntax only one
// of them accepts.
var re2Chars = []string{"a", "b", "k", "K", "\u212a", "s", "S", "\u017f", "\u00e9", "\u00c9", "\u00df", "\u1e9e",
	"\u03b1", "\u03a3", "\u03c3", "\u03c2", "1", "\u0663", " ", "\n", "\t", "\v", ".", "-", "_", "x", "\u6f22"}

var re2Escapes = []string{`\d`, `\D`, `\s`, `\S`, `\w`, `\W`, `\b`, `\B`, `\A`, `\z`, `\Z`, `\.`, `\-`,
	`\<`, `\>`, `\h`, `\x41`, `\x{3A3}`, `\x{212A}`, `\101`, `\0`, `\8`, `\1`, `\Qa.b\E`, `\Q`, `\e`, `\a`, `\f`, `\v`,
	`\pL`, `\pN`, `\PL`, `\p{Greek}`, `\p{greek}`, `\p{^Greek}`, `\P{^Greek}`, `\p{Lu}`, `\p{Ll}`, `\p{Latin}`,
	`\p{Nd}`, `\p{Any}`, `\p{Han}`, `\p{L&}`, `\p{Alphabetic}`, `\p{White_Space}`, `\p{Zs}`, `\p{Cn}`,
	`\p{Lt}`, `\p{Cyrillic}`, `\p{Common}`, `\p{Inherited}`, `\p{ASCII}`, `\p{sc=Greek}`, `\p{Gr_eek}`, `\p`, `\p{`}

var re2Classes = []string{"[a-z]", "[^a-z]", "[[:alpha:]]", "[[:^digit:]]", "[[:word:]]", "[[:foo:]]",
	`[\d-z]`, "[a-]", "[]a]", "[^]a]", "[a&&b]", "[a--b]", "[a~~b]", `[\p{Greek}k]`, "[k-s]", "[\u017f]",
	"[\u212a]", "[[]", "[z-a]", "[^\n]", `[\w\s]`, `[\W]`, "[\u03c3]", "[^\u03a3]", `[\b]`, `[\Q]\E]`, "[]", "[^]"}

var re2Groups = []struct{ open, close string }{{"(", ")"}, {"(?:", ")"}, {"(?i:", ")"}, {"(?s:", ")"}, {"(?m:", ")"},
	{"(?U:", ")"}, {"(?-i:", ")"}, {"(?P<n>", ")"}, {"(?<n>", ")"}, {"(?=", ")"}, {"(?!", ")"}, {"(?x:", ")"},
	{"(?i)(", ")"}, {"(", ""}, {"", ")"}}

var re2Repeats = []string{"*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?", "??", "{1,2}?", "{1001}", "{1000}",
	"{,2}", "**", "*+", "{2}{3}", "{3,1}", "{", "{x}"}

func (g gen) re2Atom(depth int) string {
	switch n := g.r.IntN(10); {
	case n < 4:
		return re2Chars[g.r.IntN(len(re2Chars))]
	case n < 6:
		return re2Escapes[g.r.IntN(len(re2Escapes))]
	case n < 8:
		return re2Classes[g.r.IntN(len(re2Classes))]
	case n == 8 && depth < 3:
		gr := re2Groups[g.r.IntN(len(re2Groups))]
		return gr.open + g.re2Pattern(depth+1) + gr.close
	default:
		return g.pick("^", "$", ".", "|", "(?i)", "(?s)", "(?m)", "(?U)", "(?-i)", "(?i-s)").(string)
	}
}

func (g gen) re2Pattern(depth int) string {
	var b strings.Builder
	for i := 0; i < 1+g.r.IntN(4); i++ {
		b.WriteString(g.re2Atom(depth))
		if g.chance(0.25) {
			b.WriteString(re2Repeats[g.r.IntN(len(re2Repeats))])
		}
	}
	return b.String()
}

func (g gen) re2Text() string {
	var b strings.Builder
	for i := 0; i < g.r.IntN(7); i++ {
		b.WriteString(re2Chars[g.r.IntN(len(re2Chars))])
	}
	return b.String()
}

// jobsetPatterns: one FailJobSet rule selecting on one random pattern; one failed Job with a
// random message. maxRestarts 1 and no restarts yet, so a miss restarts the JobSet. A third of
// the patterns end in an empty alternative (`P|`), which matches every text when the whole
// pattern compiles: there, matching shows whether Go accepted the syntax at all.
func (g gen) jobsetPatterns() map[string]any {
	pattern := g.re2Pattern(0)
	if g.chance(0.33) {
		pattern += "|"
	}
	podSpec := map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "main", "image": "busybox"}}}
	js := map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": "js", "namespace": "default"},
		"spec": map[string]any{
			"replicatedJobs": []any{map[string]any{"name": "workers", "replicas": 1, "groupName": "default",
				"template": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": podSpec}}}}},
			"failurePolicy": map[string]any{"maxRestarts": 1, "restartStrategy": "Recreate", "rules": []any{map[string]any{
				"name": "pattern", "action": "FailJobSet", "onJobFailureMessagePatterns": []any{pattern},
			}}},
		},
		"status": map[string]any{"restarts": 0, "restartsCountTowardsMax": 0},
	}
	job := map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "js-workers-0", "namespace": "default", "labels": map[string]any{
			"jobset.sigs.k8s.io/jobset-name": "js", "jobset.sigs.k8s.io/replicatedjob-name": "workers", "jobset.sigs.k8s.io/job-index": "0"}},
		"spec": map[string]any{"template": map[string]any{"spec": podSpec}},
		"status": map[string]any{"failed": 1, "conditions": []any{map[string]any{
			"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": g.re2Text(),
			"lastTransitionTime": "2025-01-01T12:00:00Z",
		}}},
	}
	return map[string]any{"jobset": js, "failedJobs": []any{job}}
}
