package main

// The reading leg: whole files as kubectl reads them. Random multi-document YAML streams (a
// broken document in the middle: a key twice, bad indentation, tabs, unterminated quotes,
// unclosed flows, bad `---` lines) and concatenated JSON streams (with and without newlines or
// white space between objects, a bad object in the middle, text or YAML after the JSON) go
// through kubectl's own decode loop (cli-runtime's StreamVisitor: apimachinery's
// NewYAMLOrJSONDecoder(r, 4096) into a runtime.RawExtension, stopping at its first error,
// passing over empty and null documents) and through `restartkit convert --jsonl --stream`.
// Per document both must give the same JSON, or both refuse it; and both must stop (kubectl
// applies nothing after) at the same document.
//
// A document kubectl's decoder reads is then read strictly, as restartkit reads every
// document: YAML with sigs.k8s.io/yaml YAMLToJSONStrict (the yaml leg's reading), JSON with
// sigs.k8s.io/json UnmarshalStrict (the API server's strict JSON decoding). kubectl's decoder
// is not strict (a key written twice keeps the last value), so a strict refusal is an error of
// that document alone: the stream goes on.
//
// The strict reading needs each document's own text, which the decoder does not hand out: a
// shadow splitter built from the same upstream pieces (encoding/json's Decoder as the decoder
// runs it, apimachinery's YAMLReader) finds it, and every document it finds is checked to
// decode to the very bytes the real decoder gave; a difference stops the run as an oracle bug.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// readingEntry is one document of a stream: its JSON, or why it is refused and whether kubectl
// stops reading there.
type readingEntry struct {
	JSON  json.RawMessage
	Err   string
	Stops bool
}

// shadowSplitter finds the text of each document the real decoder decodes (see above).
type shadowSplitter struct {
	text    []byte
	dec     *json.Decoder
	jsonEnd int64 // input offset after the last JSON value
	count   int
	yaml    *utilyaml.YAMLReader
}

func newShadowSplitter(text []byte) *shadowSplitter {
	s := &shadowSplitter{text: text}
	if utilyaml.IsJSONBuffer(text[:min(len(text), 4096)]) {
		s.dec = json.NewDecoder(bytes.NewReader(text))
	} else {
		s.yaml = utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	}
	return s
}

// next: the text of the next document and whether it was read as JSON.
func (s *shadowSplitter) next() ([]byte, bool, error) {
	if s.dec != nil {
		var raw json.RawMessage
		err := s.dec.Decode(&raw)
		if err == nil {
			s.count++
			s.jsonEnd = s.dec.InputOffset()
			return raw, true, nil
		}
		if err == io.EOF || s.count > 1 {
			return nil, false, err
		}
		// The decoder's fall back: white space up to and including the first newline after
		// the last JSON value is passed over, and the rest is YAML.
		rest := s.text[s.jsonEnd:]
		from := -1
		for i := 0; i < len(rest); {
			r, size := utf8.DecodeRune(rest[i:])
			if !unicode.IsSpace(r) {
				from = i
				break
			}
			i += size
			if r == '\n' {
				from = i
				break
			}
		}
		s.dec = nil
		if from < 0 {
			return nil, false, err
		}
		s.yaml = utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(rest[from:])))
	}
	if s.yaml == nil {
		return nil, false, io.EOF
	}
	chunk, err := s.yaml.Read()
	return chunk, false, err
}

// upstreamReading reads text as kubectl's StreamVisitor does.
func upstreamReading(text string) ([]readingEntry, error) {
	d := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(text), 4096)
	shadow := newShadowSplitter([]byte(text))
	var out []readingEntry
	for {
		ext := runtime.RawExtension{}
		err := d.Decode(&ext)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return append(out, readingEntry{Err: err.Error(), Stops: true}), nil
		}
		src, isJSON, serr := shadow.next()
		if serr != nil && !(serr == io.EOF && len(src) > 0) {
			return nil, fmt.Errorf("shadow splitter: %v where the decoder read %q", serr, ext.Raw)
		}
		// The shadow's text must decode to what the decoder gave.
		var again runtime.RawExtension
		if isJSON {
			again.Raw = bytes.TrimSpace(src)
			if string(again.Raw) == "null" {
				again.Raw = nil
			}
		} else if err := yaml.Unmarshal(src, &again); err != nil {
			return nil, fmt.Errorf("shadow splitter: %q does not decode (%v) where the decoder read %q", src, err, ext.Raw)
		}
		if !bytes.Equal(bytes.TrimSpace(again.Raw), bytes.TrimSpace(ext.Raw)) {
			return nil, fmt.Errorf("shadow splitter found %q (%s) where the decoder read %q", src, again.Raw, ext.Raw)
		}
		raw := bytes.TrimSpace(ext.Raw)
		if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			continue
		}
		if isJSON {
			var v any
			strict, err := sigsjson.UnmarshalStrict(src, &v, sigsjson.DisallowDuplicateFields)
			switch {
			case err != nil:
				out = append(out, readingEntry{Err: err.Error()})
			case len(strict) > 0:
				out = append(out, readingEntry{Err: errors.Join(strict...).Error()})
			default:
				out = append(out, readingEntry{JSON: raw})
			}
			continue
		}
		j, err := yaml.YAMLToJSONStrict(src)
		if err != nil {
			out = append(out, readingEntry{Err: err.Error()})
		} else {
			out = append(out, readingEntry{JSON: j})
		}
	}
}

type readingGen struct {
	r *rand.Rand
	y *yamlGen
}

func (g *readingGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// Documents a kubectl file holds, and broken ones.
func (g *readingGen) yamlDoc() string {
	name := fmt.Sprintf("p%d", g.r.IntN(100))
	switch g.r.IntN(12) {
	case 0, 1, 2:
		var b strings.Builder
		g.y.mapping(&b, 0, 0, -1)
		return b.String()
	case 3:
		return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\nspec:\n  restartPolicy: " + g.pick("Never", "Always", "OnFailure") + "\n  containers:\n  - name: c\n    image: busybox\n"
	case 4:
		return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name + "}\nspec:\n  backoffLimit: " + g.pick("3", "0x10", "010", "'6'", "yes") + "\n"
	case 5:
		return "# only a comment\n"
	case 6:
		return g.pick("", "~\n", "null\n", "\n\n")
	case 7:
		return "{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"data\": {\"k\": \"v\"}}\n"
	case 8:
		return g.pick("- a\n- b\n", "just a string\n", "42\n", "[1, 2]\n", "{a: 1, b: [x, y]}\n")
	default:
		return "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: " + name + "\ndata:\n  a: \"1\"\n"
	}
}

var brokenYAML = []string{
	"a: 1\nb: 2\na: 3\n",                   // a key twice
	"metadata:\n  name: x\n  name: y\n",    // a key twice, nested
	"x: &x {a: 1}\ny:\n  <<: *x\n  a: 2\n", // a key twice through a merge
	"a: 1\nb: 1\nb: 2\nc: [\n",             // a key twice, then a syntax error
	"a:\n  b: 1\n c: 2\n",                  // bad indentation
	"a:\n    b: 1\n  c: 2\n",               // bad indentation
	"a:\n\tb: 1\n",                         // a tab indents
	"a: 1\n\tb: 2\n",                       // a tab indents
	"a: 'unterminated\nb: 2\n",             // unterminated quote
	"a: \"unterminated\n",                  // unterminated quote at the end
	"a: [1, 2\nb: 3\n",                     // unclosed flow
	"a: {b: 1\n",                           // unclosed flow
	"a: b: c\n",                            // mapping value where none may be
	"a: *nowhere\n",                        // alias to nothing
	"a: !!int abc\n",                       // a tag that refuses its value
	"a: .nan\n",                            // not a finite number
	"- a\nb: 1\n",                          // a sequence then a mapping
	"%YAML 1.1\na: 1\n",                    // a directive without ---
	"a: \"\\/\"\n",                         // an escape YAML 1.1 lacks
	"{\"a\": 1, \"a\": 2}\n",               // JSON-looking YAML with a key twice
	"a: 1\n...\nb: 2\n",                    // a document end, then more
	"k: v\n  - x\n",                        // a sequence where a value was
}

var yamlSeparators = []string{"---\n", "---\n", "---\n", "--- # next\n", "---   \n", "---\r\n", "---\n---\n", "---\n# c\n"}
var badSeparators = []string{"--- x\n", "----\n", "---x\n", "--- {a: 1}\n", "--- |\n"}

func (g *readingGen) yamlStream() string {
	var b strings.Builder
	if g.r.Float64() < 0.3 {
		b.WriteString(g.pick("---\n", "--- # first\n", "# header\n", "\n"))
	}
	n := 1 + g.r.IntN(6)
	broken := -1
	if g.r.Float64() < 0.8 {
		broken = g.r.IntN(n)
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			if g.r.Float64() < 0.04 {
				b.WriteString(badSeparators[g.r.IntN(len(badSeparators))])
			} else {
				b.WriteString(yamlSeparators[g.r.IntN(len(yamlSeparators))])
			}
		}
		if i == broken {
			b.WriteString(brokenYAML[g.r.IntN(len(brokenYAML))])
		} else {
			b.WriteString(g.yamlDoc())
		}
	}
	if g.r.Float64() < 0.2 {
		b.WriteString(g.pick("---\n", "---", "...\n", "\n\n"))
	}
	out := b.String()
	if g.r.Float64() < 0.05 {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out
}

func (g *readingGen) jsonObject() string {
	switch g.r.IntN(8) {
	case 0:
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	case 1:
		return "{\n  \"kind\": \"ConfigMap\",\n  \"data\": {\"a\": \"1\", \"b\": [1, 2.5, -3e2, true, null]}\n}"
	case 2:
		return `{"a": {"b": {"c": [{}, [], "x\/y", "\u00e9"]}}}`
	case 3:
		return `{"a": 1, "a": 2}` // a key twice
	case 4:
		return `{"n": 12345678901234567890, "f": 1.0, "e": 1E3}`
	default:
		m := map[string]any{}
		for i := 0; i < 1+g.r.IntN(4); i++ {
			m[g.pick("a", "b", "kind", "name", "x")] = g.pick("1", "yes", "010", "x y")
		}
		return string(mustJSON(m))
	}
}

var badJSON = []string{
	`{"a": }`, `{"a" 1}`, `{"a": [1, 2}`, `{"a": 1,}`, `{a: 1}`, `{"a": 01}`, `{"a": "x`, `{"a": tru}`,
	`xyz`, `]`, `}`, `{"a": 1}}`, `{"a": NaN}`, `{"a": 1e400}`,
}

func (g *readingGen) jsonStream() string {
	var b strings.Builder
	b.WriteString(g.pick("", "", "", " ", "\n", "\t\n  ", "\r\n", "\u00a0", "\ufeff", "\v"))
	n := 1 + g.r.IntN(6)
	bad := -1
	if g.r.Float64() < 0.6 {
		bad = g.r.IntN(n)
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(g.pick("", "\n", " ", "\r\n", "\t", "\n\n  ", "\n"))
		}
		switch {
		case i == 0 && i != bad:
			b.WriteString(g.jsonObject()) // a JSON stream starts with `{`
		case i == bad:
			b.WriteString(badJSON[g.r.IntN(len(badJSON))])
		case g.r.Float64() < 0.1:
			b.WriteString(g.pick("[1, 2]", "42", `"s"`, "null", "true", "[]", `[{"a": 1}]`))
		default:
			b.WriteString(g.jsonObject())
		}
	}
	if g.r.Float64() < 0.15 {
		// YAML after the JSON.
		b.WriteString(g.pick("\n---\nb: 2\n", "\nb: 2\n", "\n---\nb: [\n", " xyz\n---\nc: 1\n", "\n---\n"))
	}
	return b.String()
}

// runReading generates n streams and compares kubectl's reading with restartkit's; it returns
// the case and disagreement counts.
func runReading(n int, seed uint64) (int, int, error) {
	g := &readingGen{r: rand.New(rand.NewPCG(seed, 0x72656164))}
	g.y = &yamlGen{r: g.r}
	streams := make([]string, n)
	var in bytes.Buffer
	for i := range streams {
		if g.r.Float64() < 0.5 {
			streams[i] = g.yamlStream()
		} else {
			streams[i] = g.jsonStream()
		}
		in.Write(mustJSON(streams[i]))
		in.WriteByte('\n')
	}
	cmd := exec.Command(*flagRK, "convert", "--jsonl", "--stream", "-k", minorVersion(k8sModule()))
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("restartkit convert --stream: %v: %s", err, stderr.String())
	}
	type rkEntry struct {
		Value        json.RawMessage `json:"value"`
		Error        json.RawMessage `json:"error"`
		StopsKubectl bool            `json:"stopsKubectl"`
	}
	type answer struct {
		Stream []rkEntry `json:"stream"`
	}
	answers, err := convertAnswers[answer](out, n, "streams")
	if err != nil {
		return 0, 0, err
	}
	bad, docs, stopped := 0, 0, 0
	for i, text := range streams {
		want, err := upstreamReading(text)
		if err != nil {
			return 0, 0, fmt.Errorf("reading-%d-%d: %v (stream %s)", seed, i, err, mustJSON(text))
		}
		got := answers[i].Stream
		var why string
		for j, w := range want {
			docs++
			if j >= len(got) {
				why = fmt.Sprintf("document %d: upstream %s, restartkit has no such document", j, describeEntry(w))
				break
			}
			gj := got[j]
			switch {
			case w.Err == "" && gj.Error != nil:
				why = fmt.Sprintf("document %d: upstream %s, restartkit refuses (%s)", j, w.JSON, gj.Error)
			case w.Err == "" && !sameJSON(w.JSON, gj.Value):
				why = fmt.Sprintf("document %d: upstream %s, restartkit %s", j, w.JSON, gj.Value)
			case w.Err != "" && gj.Error == nil:
				why = fmt.Sprintf("document %d: upstream %s, restartkit converts to %s", j, describeEntry(w), gj.Value)
			case w.Err != "" && w.Stops != gj.StopsKubectl:
				why = fmt.Sprintf("document %d: upstream %s, restartkit refuses with stopsKubectl=%v (%s)", j, describeEntry(w), gj.StopsKubectl, gj.Error)
			}
			if why != "" {
				break
			}
		}
		stops := len(want) > 0 && want[len(want)-1].Stops
		if stops {
			stopped++
		}
		if why == "" && !stops && len(got) != len(want) {
			why = fmt.Sprintf("upstream reads %d documents, restartkit %d", len(want), len(got))
		}
		if why != "" {
			bad++
			if bad <= 20 {
				fmt.Printf("DISAGREE reading-%d-%d: %s\n  stream: %s\n", seed, i, why, mustJSON(text))
			}
		}
	}
	fmt.Printf("reading(kubectl StreamVisitor: YAMLOrJSONDecoder + strict per document): %d cases (%d documents, %d streams kubectl stops reading), %d disagreements\n", n, docs, stopped, bad)
	return n, bad, nil
}

func describeEntry(e readingEntry) string {
	switch {
	case e.Err == "":
		return string(e.JSON)
	case e.Stops:
		return fmt.Sprintf("stops reading (%s)", e.Err)
	default:
		return fmt.Sprintf("refuses the document alone (%s)", e.Err)
	}
}
