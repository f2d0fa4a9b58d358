package main

// The YAML leg: random YAML documents, converted to JSON by upstream (sigs.k8s.io/yaml's
// YAMLToJSONStrict: what kube-apiserver runs on a YAML body under strict field validation,
// kubectl's default) and by restartkit (`restartkit convert --jsonl`, the reader every
// validation goes through). Both must give the same JSON, or both refuse the document.
//
// Not generated, because upstream's answer is not a fact to compare against:
//   - keys of different YAML types that name the same JSON key (`1` and `'1'`, `1e3` and
//     `1000`): upstream keeps one of them at random (Go map order); restartkit refuses them
//     as duplicates;
//   - integers beyond 64 bits with a base prefix (`0x1FFFFFFFFFFFFFFFFF`): upstream keeps a
//     big integer, restartkit the nearest float (both fail any integer field);
//   - a key `.nan` twice: NaN is not equal to itself, so upstream's strict check lets both in
//     and keeps one at random; restartkit refuses the duplicate;
//   - documents starting with `{`: kubectl reads those as JSON, not through YAMLToJSON.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Keys by the JSON name they resolve to; one mapping uses each group at most once (see above),
// but may repeat one exact spelling, a duplicate both sides refuse.
var yamlKeyGroups = [][]string{
	{"name"}, {"image"}, {"values"}, {"exitCode"}, {"restartPolicy"}, {"a"}, {"b"}, {"c"},
	{"yes", "on", "y", "Y", "true", "True", "ON"},
	{"no", "off", "n", "N", "false", "OFF"},
	{"1", "01", "0x1", "0o1", "0b1", "+1", "1_"},
	{"8", "010", "0o10", "0x8", "0b1000", "8_"},
	{"-1", "-01", "-0x1"},
	{"1.5", "1.50", "1.5_0", "15e-1"},
	{"1000", "1e3", "1_000", "1E3"},
	{"'y'"}, {"\"no\""}, {"'<<'"}, {"'010'"}, {".inf", ".Inf"}, {"-.inf"},
}

// Keys and scalars both sides refuse; drawn rarely so that most documents convert.
var yamlRefusedKeys = []string{"~", "null", "Null", "!!int abc"}
var yamlRefusedScalars = []string{".nan", ".inf", "-.Inf", "+.INF", "!!int abc", "!!bool 1", "!!float yes", "!!null 0"}

var yamlScalars = []string{
	"yes", "Yes", "YES", "yES", "no", "No", "on", "off", "On", "OFF", "y", "Y", "n", "N",
	"true", "True", "tRUE", "false", "FALSE", "null", "Null", "NULL", "nULL", "~", "",
	"010", "08", "09", "00", "-010", "+010", "0o17", "0o8", "0x1F", "0x_1F", "-0x1F", "+0x10",
	"0xFFFFFFFFFFFFFFFF", "0x7FFFFFFFFFFFFFFF", "0b101", "-0b11", "0b12", "0B11", "0b-1",
	"1_000", "1__0", "1_", "_1", "1_000.5", "6.0", "1.", ".5", "+.5", "-.5e1", ".5_0", "._5",
	"1e1", "1E2", "1e-7", "1e21", "1e20", "1e400", ".5e400", "0.1e1", "1.5e300", "-0.0", "-0",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"18446744073709551615", "18446744073709551616", "99999999999999999999999",
	"123456789.0", "2147483647", "2147483648", "-2147483649", "42", "137", "255", "256",
	"2024-01-01", "2001-12-14T21:59:43.10-05:00", "12:30", "1:20:30", "-", "+", ".", "0x",
	"<<", "Never", "OnFailure", "Always", "FailJob",
	"In", "NotIn", "main", "a b", "1 2", "0.0.1", "v1", "1-2",
	"'010'", "\"yes\"", "'on'", "\"0x1F\"", "'~'", "\"\"",
	"!!str 010", "!!str yes", "!!int '010'", "!!int \"0x1F\"", "!!float 1", "!!float '6'",
	"!!bool yes", "!!bool 'on'", "!!null ''", "!foo bar", "!foo 010",
}

type yamlGen struct {
	r       *rand.Rand
	anchors int
}

func (g *yamlGen) scalar() string {
	if g.r.Float64() < 0.01 {
		return yamlRefusedScalars[g.r.IntN(len(yamlRefusedScalars))]
	}
	s := yamlScalars[g.r.IntN(len(yamlScalars))]
	if g.r.Float64() < 0.3 {
		// A number spelled some other way.
		n := g.r.Int64N(1 << 40)
		if g.r.Float64() < 0.5 {
			n = g.r.Int64N(300)
		}
		switch g.r.IntN(8) {
		case 0:
			s = fmt.Sprintf("0%o", n)
		case 1:
			s = fmt.Sprintf("0x%X", n)
		case 2:
			s = fmt.Sprintf("0b%b", n)
		case 3:
			s = fmt.Sprintf("%d.0", n)
		case 4:
			s = fmt.Sprintf("-%d", n)
		case 5:
			s = fmt.Sprintf("%de%d", n%100, g.r.IntN(25)-5)
		case 6:
			d := fmt.Sprint(n)
			i := g.r.IntN(len(d))
			s = d[:i] + "_" + d[i:]
		default:
			s = fmt.Sprint(n)
		}
	}
	return s
}

// value writes a node at indentation ind (block style) or inline.
func (g *yamlGen) value(b *strings.Builder, ind int, depth int) {
	switch {
	case depth < 3 && g.r.Float64() < 0.25:
		b.WriteString("\n")
		g.mapping(b, ind+2, depth+1, -1)
	case depth < 3 && g.r.Float64() < 0.15:
		b.WriteString("\n")
		n := 1 + g.r.IntN(3)
		for i := 0; i < n; i++ {
			fmt.Fprintf(b, "%s- ", strings.Repeat(" ", ind+2))
			if g.r.Float64() < 0.05 {
				b.WriteString("-") // a dash alone is a string in block context, for both
			} else {
				b.WriteString(g.scalar())
			}
			b.WriteString("\n")
		}
	case g.r.Float64() < 0.15:
		n := g.r.IntN(4)
		items := make([]string, n)
		for i := range items {
			items[i] = g.scalar()
		}
		fmt.Fprintf(b, " [%s]\n", strings.Join(items, ", "))
	default:
		b.WriteString(" " + g.scalar() + "\n")
	}
}

// mapping writes a block mapping; with plainKeys >= 0 only the letter keys plainKeys..+2 are used
// (merge sources and targets get disjoint letters, so merged keys collide only now and then,
// and only as exact duplicates).
func (g *yamlGen) mapping(b *strings.Builder, ind int, depth int, plainKeys int) {
	pad := strings.Repeat(" ", ind)
	n := 1 + g.r.IntN(5)
	used := map[int]bool{}
	var last string
	for i := 0; i < n; i++ {
		var k string
		switch {
		case last != "" && g.r.Float64() < 0.03:
			k = last // an exact duplicate
		case g.r.Float64() < 0.01:
			k = yamlRefusedKeys[g.r.IntN(len(yamlRefusedKeys))]
		case plainKeys >= 0:
			letter := plainKeys + g.r.IntN(3)
			if g.r.Float64() < 0.03 {
				letter = g.r.IntN(12) // may collide with another source of the merge
			}
			if used[100+letter] {
				continue
			}
			used[100+letter] = true
			k = string(rune('a' + letter))
		default:
			gi := g.r.IntN(len(yamlKeyGroups))
			if used[gi] {
				continue
			}
			used[gi] = true
			grp := yamlKeyGroups[gi]
			k = grp[g.r.IntN(len(grp))]
		}
		last = k
		b.WriteString(pad + k + ":")
		g.value(b, ind, depth)
	}
}

// Syntax fragments as values of a block mapping key at column 0 (continuation lines indented
// by two): quoting and escapes, block scalars with their indicators, folded plain scalars,
// comments, flow collections, explicit keys, odd but common layouts. They look for differences
// between the two parsers (go-yaml's libyaml port, saphyr-parser), not between resolvers.
var yamlFragments = []string{
	`"a\tb"`, `"\x41\u00e9\U0001F600"`, `"\/"`, `"\N\_\L\P"`, `"\e\0\a\b\v\f"`, `"\ "`,
	`"a\` + "\n  b\"", `"line one` + "\n\n  line two\"", `"q\"q"`, `"\'"`, `'it''s'`, `'a` + "\n  b'",
	"|\n  a\n  b\n", "|-\n  a\n\n", "|+\n  a\n\n", ">\n  a\n  b\n\n  c\n", ">-\n  a\n   b\n  c\n",
	"|2\n   a\n  b\n", ">+\n  a\n", "|\n  # not a comment\n", "|\n\n  a\n",
	"a\n  b\n  c", "a # comment", "a#b", "http://x:8080/p", "-1", "- a", "a: b",
	"[1, [2, [3]], {a: b}]", "[cat, -]", "{a: -}", "[-]", "[-x, '-', \"-\"]", "{a: 1, b: [x, y]}", "[a, b, ]", "{a: 1, }", "[]", "{}",
	"[\n  a,\n  b\n  ]", "{a: {b: {c: d}}}", "[a: b]", "[? a : b]", "{a}", "{? a}",
	"&a 1", "&b [1, 2]", "!!str &c x", "\t1", "1\t", "a\tb", "~", "", " # only a comment",
	"\n  - 1\n  - 2", "\n- 1\n- 2", "\n  - a: 1\n    b: 2\n  - c", "\n  ? x\n  : y",
	"\n  a: 1\n  b:\n    - 2", "\n  'q k': 1\n  \"d k\": 2\n  a b: 3", "`x`", "@x", "%x",
	"a: b: c", "\n  a: 1\n   b: 2", "[a, b", "{a: 1", "'unclosed", "\"\\q\"", "!!binary aGk=",
	"!local x", "!<tag:yaml.org,2002:str> 5", "!!map {a: 1}", "!!seq [1]", "!!str [1]",
}

var yamlHeaders = []string{
	"", "", "", "", "---\n", "--- # c\n", "%YAML 1.1\n---\n", "%YAML 1.2\n---\n",
	"%TAG !e! tag:example.com,2000:\n---\n", "\ufeff", "# header\n",
}

func (g *yamlGen) syntaxDocument() string {
	var b strings.Builder
	b.WriteString(yamlHeaders[g.r.IntN(len(yamlHeaders))])
	n := 1 + g.r.IntN(4)
	for i := 0; i < n; i++ {
		f := yamlFragments[g.r.IntN(len(yamlFragments))]
		if strings.HasPrefix(f, "\n") || strings.HasPrefix(f, "|") || strings.HasPrefix(f, ">") {
			fmt.Fprintf(&b, "k%d: %s", i, strings.TrimPrefix(f, " "))
		} else {
			fmt.Fprintf(&b, "k%d: %s", i, f)
		}
		if !strings.HasSuffix(f, "\n") {
			b.WriteString("\n")
		}
	}
	if g.r.Float64() < 0.1 {
		b.WriteString("...\n")
	}
	out := b.String()
	if g.r.Float64() < 0.1 {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out
}

// document: sometimes syntax fragments, sometimes anchors and merge keys, else a free mapping.
func (g *yamlGen) document() string {
	var b strings.Builder
	if g.r.Float64() < 0.3 {
		return g.syntaxDocument()
	}
	if g.r.Float64() < 0.25 {
		// Anchored plain-key mappings, then a mapping merging some of them.
		n := 1 + g.r.IntN(3)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "base%d: &m%d\n", i, i)
			g.mapping(&b, 2, 2, 3*i)
		}
		b.WriteString("merged:\n")
		switch g.r.IntN(10) {
		case 0:
			fmt.Fprintf(&b, "  <<: *m%d\n", g.r.IntN(n))
		case 1:
			refs := []string{}
			for i := 0; i < n; i++ {
				if g.r.Float64() < 0.7 {
					refs = append(refs, fmt.Sprintf("*m%d", i))
				}
			}
			fmt.Fprintf(&b, "  <<: [%s]\n", strings.Join(refs, ", "))
		case 2, 3, 4, 5:
			refs := []string{}
			for i := 0; i < n; i++ {
				refs = append(refs, fmt.Sprintf("*m%d", i))
			}
			fmt.Fprintf(&b, "  <<: [%s]\n", strings.Join(refs, ", "))
		case 6, 7, 8:
			fmt.Fprintf(&b, "  <<: {%s: %s}\n", string(rune('a'+9+g.r.IntN(3))), g.scalar())
		default:
			fmt.Fprintf(&b, "  <<: %s\n", g.scalar()) // refused unless it is a mapping
		}
		if g.r.Float64() < 0.7 {
			g.mapping(&b, 2, 2, 9)
		}
		return b.String()
	}
	g.mapping(&b, 0, 0, -1)
	return b.String()
}

// sameJSON compares two JSON texts as values; numbers by exact decimal value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	da := json.NewDecoder(bytes.NewReader(a))
	da.UseNumber()
	db := json.NewDecoder(bytes.NewReader(b))
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return sameValue(x, y)
}

func sameValue(x, y any) bool {
	switch a := x.(type) {
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := y.(json.Number)
		if !ok {
			return false
		}
		fa, _, ea := big.ParseFloat(string(a), 10, 200, big.ToNearestEven)
		fb, _, eb := big.ParseFloat(string(b), 10, 200, big.ToNearestEven)
		return ea == nil && eb == nil && fa.Cmp(fb) == 0
	default:
		return x == y
	}
}

// runYAML generates n documents and compares upstream's and restartkit's conversion; it
// returns the case and disagreement counts.
func runYAML(n int, seed uint64) (int, int, error) {
	g := &yamlGen{r: rand.New(rand.NewPCG(seed, 0x79616d6c))}
	docs := make([]string, n)
	var in bytes.Buffer
	for i := range docs {
		docs[i] = g.document()
		in.Write(mustJSON(docs[i]))
		in.WriteByte('\n')
	}
	cmd := exec.Command(*flagRK, "convert", "--jsonl", "-k", minorVersion(k8sModule()))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("restartkit convert: %v: %s", err, stderr.String())
	}
	type answer struct {
		Documents []json.RawMessage `json:"documents"`
		Error     json.RawMessage   `json:"error"`
	}
	answers, err := convertAnswers[answer](out, n, "documents")
	if err != nil {
		return 0, 0, err
	}
	bad := 0
	refused := 0
	refusedBy := map[string]int{} // upstream's refusals by kind, for the long runs' record
	for i, doc := range docs {
		want, uerr := yaml.YAMLToJSONStrict([]byte(doc))
		got := answers[i]
		var why string
		switch {
		case uerr != nil && got.Error == nil:
			why = fmt.Sprintf("upstream refuses (%v), restartkit converts to %s", uerr, joinDocs(got.Documents))
		case uerr != nil:
			refused++
			refusedBy[yamlReason(uerr)]++
		case got.Error != nil:
			why = fmt.Sprintf("restartkit refuses (%s), upstream converts to %s", got.Error, want)
		case len(got.Documents) != 1 || !sameJSON(want, got.Documents[0]):
			why = fmt.Sprintf("upstream %s, restartkit %s", want, joinDocs(got.Documents))
		}
		if why != "" {
			bad++
			if bad <= 20 {
				fmt.Printf("DISAGREE yaml-%d-%d: %s\n  document: %s\n", seed, i, why, mustJSON(doc))
			}
		}
	}
	fmt.Printf("yaml(sigs.k8s.io/yaml YAMLToJSONStrict): %d cases (%d refused by both), %d disagreements\n", n, refused, bad)
	if *flagYAMLRefusals {
		for r, k := range refusedBy {
			fmt.Printf("  refused by both %d: %s\n", k, r)
		}
	}
	return n, bad, nil
}

func joinDocs(ds []json.RawMessage) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = string(d)
	}
	return strings.Join(parts, " ")
}

var flagYAMLRefusals = flag.Bool("yaml-refusals", false, "list the kinds of YAML documents both sides refused")

var (
	reLine   = regexp.MustCompile(`line \d+`)
	reQuoted = regexp.MustCompile("(\"[^\"]*\"|`[^`]*`)")
	reValue  = regexp.MustCompile(`(key|value): .*`)
)

// yamlReason: an upstream refusal with its specifics (lines, keys, values) left out, so that
// the summary counts refusals by kind.
func yamlReason(err error) string {
	r := strings.ReplaceAll(err.Error(), "\n", " ")
	r = reLine.ReplaceAllString(r, "line N")
	r = reQuoted.ReplaceAllString(r, "X")
	return reValue.ReplaceAllString(r, "$1: ...")
}

// convertAnswers reads `restartkit convert --jsonl` output: one JSON answer per line, exactly n
// of them (what names the inputs in the error).
func convertAnswers[T any](out []byte, n int, what string) ([]T, error) {
	var answers []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var a T
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("restartkit convert printed %q: %v", sc.Text(), err)
		}
		answers = append(answers, a)
	}
	if len(answers) != n {
		return nil, fmt.Errorf("restartkit convert answered %d of %d %s", len(answers), n, what)
	}
	return answers, nil
}
