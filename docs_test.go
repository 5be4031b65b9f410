package fairclass_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The design documents live in docs/spec, copied from ../shared, and the
// code cites them by name and section ("KERNEL-SPEC-SMP §7.3",
// "KERNEL-SPEC §§2.8–2.9", "KERNEL-SPEC (§8a)"). The tests below keep the
// copies identical to their source and every citation pointing at a
// section that exists.

const specDir = "docs/spec"

// sharedDir is where the design documents are kept, beside the
// repository, on developer machines and in CI.
const sharedDir = "../shared"

// TestSpecCopiesMatchShared checks that each document in docs/spec equals
// its counterpart in ../shared byte for byte, and that every document in
// ../shared has a copy here. It skips when ../shared is absent (a
// checkout on its own).
func TestSpecCopiesMatchShared(t *testing.T) {
	if _, err := os.Stat(sharedDir); err != nil {
		t.Skipf("%s is absent beside the repository: nothing to compare the copies with", sharedDir)
	}
	copies, err := specFiles(specDir)
	if err != nil {
		t.Fatal(err)
	}
	originals, err := specFiles(sharedDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) == 0 {
		t.Fatalf("%s holds no design documents", specDir)
	}
	for _, name := range originals {
		if !slices.Contains(copies, name) {
			t.Errorf("%s/%s has no copy in %s: copy it (docs/spec/README.md says how)", sharedDir, name, specDir)
		}
	}
	for _, name := range copies {
		mine, err := os.ReadFile(filepath.Join(specDir, name))
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := os.ReadFile(filepath.Join(sharedDir, name))
		if err != nil {
			t.Errorf("%s/%s: %v (a copy here with no original there)", specDir, name, err)
			continue
		}
		if !bytes.Equal(mine, theirs) {
			t.Errorf("%s/%s differs from %s/%s (%d bytes against %d; first difference at byte %d): copy it again",
				specDir, name, sharedDir, name, len(mine), len(theirs), firstDiff(mine, theirs))
		}
	}
}

// specFiles lists the design documents of dir: its Markdown files, this
// directory's own README aside.
func specFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") && e.Name() != "README.md" {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestCitationsResolve scans every .go and .md file of the repository
// (docs/spec itself aside) for citations of the design documents and
// checks that each names a document in docs/spec and, when it gives a
// section, that the document has a heading of that number. A section
// written without a document name ("§7.3 step 5") is resolved against the
// document named last before it in the same comment or paragraph, else
// the only document its file names, else the only one its directory
// names; one that none of these settles is left out (and counted in the
// log).
func TestCitationsResolve(t *testing.T) {
	index, err := loadSpecIndex(specDir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := citingFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]*citingText{}
	dirNames := map[string]map[string]bool{}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ct := newCitingText(path, string(src))
		texts[path] = ct
		dir := filepath.Dir(path)
		if dirNames[dir] == nil {
			dirNames[dir] = map[string]bool{}
		}
		for _, n := range ct.names {
			dirNames[dir][n.name] = true
		}
	}
	var failures []string
	var named, inferred, unsettled int
	for _, path := range files {
		ct := texts[path]
		for _, c := range ct.citations(dirNames[filepath.Dir(path)]) {
			switch {
			case c.doc == "":
				unsettled++
				continue
			case c.how == "":
				named++
			default:
				inferred++
			}
			if msg := index.resolve(c); msg != "" {
				failures = append(failures, fmt.Sprintf("%s:%d: %s", path, c.line, msg))
			}
		}
	}
	t.Logf("%d files: %d citations by name, %d sections resolved from their context, %d sections with no document in context",
		len(files), named, inferred, unsettled)
	if named == 0 {
		t.Fatal("no citation found: the scanner is broken")
	}
	if len(failures) > 0 {
		t.Errorf("%d citations do not resolve in %s:\n%s", len(failures), specDir, strings.Join(failures, "\n"))
	}
}

// TestCitationShapes pins the matcher on the shapes of citation the
// repository uses.
func TestCitationShapes(t *testing.T) {
	tests := []struct {
		name, file, text string
		want             []string // "line:DOC §ID[ (inferred)]"
	}{
		{"name and section", "a.go", "// KERNEL-SPEC-SMP §7.3: the serial order", []string{"1:KERNEL-SPEC-SMP §7.3"}},
		{"three levels", "a.go", "// KERNEL-SPEC §2.15.3: a nice-0 task", []string{"1:KERNEL-SPEC §2.15.3"}},
		{"file name with .md", "a.md", "see KERNEL-SPEC-GROUPS.md §5.8.", []string{"1:KERNEL-SPEC-GROUPS §5.8"}},
		{"name in backquotes", "a.md", "the serial order of `KERNEL-SPEC-SMP` §7.3.", []string{"1:KERNEL-SPEC-SMP §7.3"}},
		{"section in parentheses", "a.go", "// the join lag of KERNEL-SPEC (§8c)", []string{"1:KERNEL-SPEC §8c"}},
		{"lettered section in kernel form", "a.go", "// KERNEL-SPEC §8(a)", []string{"1:KERNEL-SPEC §8a"}},
		{"range", "a.go", "// (KERNEL-SPEC-SMP §5.5–§5.13): the", []string{"1:KERNEL-SPEC-SMP §5.5", "1:KERNEL-SPEC-SMP §5.13"}},
		{"double section sign", "a.go", "// KERNEL-SPEC §§2.8–2.9", []string{"1:KERNEL-SPEC §2.8", "1:KERNEL-SPEC §2.9"}},
		{"list across lines", "a.go", "// (KERNEL-SPEC-SMP §3.1, §4.1,\n// §5.1): wake_up_new_task", []string{"1:KERNEL-SPEC-SMP §3.1", "1:KERNEL-SPEC-SMP §4.1", "2:KERNEL-SPEC-SMP §5.1"}},
		{"list with rules", "a.go", "// KERNEL-SPEC-SMP §5.5 rule 7b, §5.12 rule 3.5: one", []string{"1:KERNEL-SPEC-SMP §5.5", "1:KERNEL-SPEC-SMP §5.12"}},
		{"two documents", "a.go", "// KERNEL-SPEC-SMP §6.1 A2 (KERNEL-SPEC §2.4): the", []string{"1:KERNEL-SPEC-SMP §6.1", "1:KERNEL-SPEC §2.4"}},
		{"part", "a.md", "TRACE-REPLAY Part II §3 proposes", []string{"1:TRACE-REPLAY II/§3"}},
		{"name alone", "a.md", "as DESIGN.md says", []string{"1:DESIGN"}},
		{"short names", "a.go", "// KSMP §5.4, KS §2.4 and SMP §3.5 (KERNEL-SPEC-SMP §7.3)", []string{"1:KERNEL-SPEC-SMP §5.4", "1:KERNEL-SPEC §2.4", "1:KERNEL-SPEC-SMP §3.5", "1:KERNEL-SPEC-SMP §7.3"}},
		{"short name without a section", "a.go", "// the SMP layer; KS", nil},
		{"bare section in the same comment", "a.go", "// KERNEL-SPEC-GROUPS §2.4 and what\n// §3.1 derives", []string{"1:KERNEL-SPEC-GROUPS §2.4", "2:KERNEL-SPEC-GROUPS §3.1 (inferred)"}},
		{"bare section, one document in the file", "a.go", "// KERNEL-SPEC-SMP §1\n\nfunc f() {}\n\n// §7.3 step 4", []string{"1:KERNEL-SPEC-SMP §1", "5:KERNEL-SPEC-SMP §7.3 (inferred)"}},
		{"bare section, two documents in the file", "a.md", "KERNEL-SPEC §1 and KERNEL-SPEC-SMP §1\n\n(§7.3)", []string{"1:KERNEL-SPEC §1", "1:KERNEL-SPEC-SMP §1", "3:?"}},
		{"not a section", "a.go", "// 5 § of text; KERNEL-SPEC-FOO", []string{"1:KERNEL-SPEC-FOO"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := newCitingText(tt.file, tt.text)
			var got []string
			for _, c := range ct.citations(nil) {
				s := fmt.Sprintf("%d:", c.line)
				switch {
				case c.doc == "":
					s += "?"
				case c.section == "":
					s += c.doc
				case c.part != "":
					s += c.doc + " " + c.part + "/§" + c.section
				default:
					s += c.doc + " §" + c.section
				}
				if c.doc != "" && c.how != "" {
					s += " (inferred)"
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("citations of %q:\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestSpecHeadings pins the heading parser on the numbering the documents
// use.
func TestSpecHeadings(t *testing.T) {
	text := strings.Join([]string{
		"# Title",
		"## 0. Which kernel",
		"### 2.15 Weight changes",
		"#### 2.15.3 How a nice change reaches the runqueue",
		"### 8(a) The first seed patch",
		"## 10A. Wakeup placement and groups",
		"## 2. (A) How it is computed",
		"### KS §4 Enqueue (a reference to another document)",
		"```",
		"# 9. inside a code block",
		"```",
		"# Part II",
		"## 3. Proposed design",
	}, "\n")
	got := parseHeadings(text)
	want := []string{"0", "10a", "2", "2.15", "2.15.3", "3", "8a", "II/3"}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !slices.Equal(keys, want) {
		t.Errorf("sections %q, want %q", keys, want)
	}
}

// The README is a front page: within its first 60 lines the install
// command, the two commands (the seed experiments on their defaults, and
// the tests) and the whole Go example; 250 lines at most in all, the
// long results living in docs/.
func TestReadmeFrontPage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(readme), "\n"), "\n")
	if len(lines) > 250 {
		t.Errorf("README.md has %d lines; at most 250 (move long results into docs/)", len(lines))
	}
	first := strings.Join(lines[:min(60, len(lines))], "\n") + "\n"
	for _, want := range []string{
		"go get github.com/schedmodel/fairclass@latest\n",
		"go run ./examples/seeds ",
		"go test ./... ",
		"// Output: ",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("README.md's first 60 lines lack %q", want)
		}
	}
}

// The README's Go example is the root package's Example, line for line.
func TestReadmeExampleIsTheTestedOne(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	start := slices.Index(lines, "func Example() {")
	if start < 0 {
		t.Fatal("example_test.go has no func Example")
	}
	var body []string
	for _, l := range lines[start+1:] {
		if l == "}" {
			break
		}
		body = append(body, strings.TrimPrefix(l, "\t"))
	}
	if !strings.Contains(string(readme), "\n"+strings.Join(body, "\n")+"\n") {
		t.Errorf("README.md does not show Example's body as it is in example_test.go:\n%s", strings.Join(body, "\n"))
	}
}

// TestDocLinks checks every relative link of the README and docs/: the
// file it names exists and, for a link to a heading (FILE.md#anchor), so
// does the heading, by GitHub's anchor rule.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md", "docs/spec/README.md", "examples/configs/README.md")
	linkRE := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), file)
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %s: %v", path, i+1, target, err)
					continue
				}
				if anchor == "" {
					continue
				}
				text, err := os.ReadFile(dest)
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", path, i+1, target, err)
					continue
				}
				if !slices.Contains(headingAnchors(string(text)), anchor) {
					t.Errorf("%s:%d: link %s: %s has no heading with that anchor", path, i+1, target, dest)
				}
			}
		}
	}
}

// headingAnchors returns the anchors GitHub gives a Markdown file's
// headings: lower case, punctuation dropped, spaces as hyphens.
func headingAnchors(text string) []string {
	var anchors []string
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors = append(anchors, b.String())
	}
	return anchors
}

// citingFiles lists the repository's .go and .md files, docs/spec, hidden
// directories and this file aside (its tests feed the matcher citations
// that resolve nowhere on purpose).
func citingFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || filepath.ToSlash(path) == specDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if path == "docs_test.go" {
			return nil
		}
		if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// A citation is a reference to a design document, with or without a
// section.
type citation struct {
	line    int
	doc     string // the document's name without .md; "" when no context settles it
	part    string // "I", "II" when the citation names a part of the document
	section string // normalised: "7.3", "8a"; "" for the document alone
	how     string // "" when named at the citation, else where the name was found
}

// Document names: the specifications by their names (with or without
// .md), the design and style documents by their file names.
var docNameRE = regexp.MustCompile(`\b(KERNEL-SPEC(?:-[A-Z]+)*|SMP-SCENARIOS|TRACE-REPLAY)(?:\.md)?\b|\b(DESIGN|STYLE)\.md\b`)

// The documents' own short names for one another ("KS §2.4", "KSMP §5.4",
// "SMP §3.5"), counted only where a section follows at once: a short name
// is a citation only then.
var docAliasRE = regexp.MustCompile(`(?:^|[^-\w])(KS|KG|KSG|KS-GROUPS|KSMP|SMP)\s+§`)

var docAliases = map[string]string{
	"KS":        "KERNEL-SPEC",
	"KG":        "KERNEL-SPEC-GROUPS",
	"KSG":       "KERNEL-SPEC-GROUPS",
	"KS-GROUPS": "KERNEL-SPEC-GROUPS",
	"KSMP":      "KERNEL-SPEC-SMP",
	"SMP":       "KERNEL-SPEC-SMP",
}

// A section: §N, §N.M, §N.M.K, a lettered §8a, §8(a) or §10A, and ranges
// §5.1–§5.2, §§2.8–2.9, §3 to §5.
const sectionID = `\d+(?:\([a-z]\)|[A-Za-z]\b)?(?:\.\d+)*`

var sectionRE = regexp.MustCompile(`§§?\s*(` + sectionID + `)(?:(?:\s*[–—-]\s*§?\s*|\s+to\s+§\s*)(` + sectionID + `))?`)

// directGap is what may stand between a document's name and its section:
// the closing backquote or emphasis of the name, a part, an opening
// parenthesis.
var directGap = regexp.MustCompile(`^[` + "`" + `*"']*(?:,?\s*[Pp]art\s+([IVX]+),?)?\s*\(?\s*$`)

// listGap is what may stand between two sections of one list: a rule,
// step or item number of the first, then a comma, semicolon or "and".
var listGap = regexp.MustCompile(`^(?:\s+(?:rules?|steps?|items?|paths?|cases?|[A-Z]\d+)(?:\s+(?:\d+[a-z]?(?:\.\d+)?|[a-z]\b))?(?:\s*[–-]\s*\d+)?)?\s*\)?\s*(?:,|;|\band\b|\bor\b|,\s*and\b)\s*\(?\s*$`)

// nameAt is a document's name where the text gives it, as an offset range.
type nameAt struct {
	name       string
	start, end int
}

// citingText is one file's text with the comment markers of its lines
// removed, so that citations broken across comment lines read as one.
type citingText struct {
	path      string
	text      string
	lineStart []int // offset in text of each line
	block     []int // block number of each line: a comment, a paragraph
	names     []nameAt
}

func newCitingText(path, src string) *citingText {
	ct := &citingText{path: path}
	isGo := strings.HasSuffix(path, ".go")
	var b strings.Builder
	block, prevKind := 0, ""
	for _, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		kind := "text"
		if isGo {
			if c, ok := strings.CutPrefix(l, "//"); ok {
				l, kind = strings.TrimSpace(c), "comment"
			} else {
				kind = "code"
			}
		}
		if l == "" || kind != prevKind {
			block++
		}
		prevKind = kind
		ct.lineStart = append(ct.lineStart, b.Len())
		ct.block = append(ct.block, block)
		b.WriteString(l)
		b.WriteByte('\n')
	}
	ct.text = b.String()
	for _, m := range docNameRE.FindAllStringSubmatchIndex(ct.text, -1) {
		var name string
		if m[2] >= 0 {
			name = ct.text[m[2]:m[3]]
		} else {
			name = ct.text[m[4]:m[5]]
		}
		ct.names = append(ct.names, nameAt{name: name, start: m[0], end: m[1]})
	}
	for _, m := range docAliasRE.FindAllStringSubmatchIndex(ct.text, -1) {
		ct.names = append(ct.names, nameAt{name: docAliases[ct.text[m[2]:m[3]]], start: m[2], end: m[3]})
	}
	sort.Slice(ct.names, func(i, j int) bool { return ct.names[i].start < ct.names[j].start })
	return ct
}

func (ct *citingText) lineOf(off int) int {
	i := sort.Search(len(ct.lineStart), func(i int) bool { return ct.lineStart[i] > off })
	return i // lines are numbered from 1: the last start ≤ off is line i
}

// citations lists the file's citations in order of position; dirNames are
// the documents its directory names, for sections that neither their
// comment nor their file settles.
func (ct *citingText) citations(dirNames map[string]bool) []citation {
	fileNames := map[string]bool{}
	for _, n := range ct.names {
		fileNames[n.name] = true
	}
	type item struct {
		off int
		c   citation
	}
	var out []item
	used := make([]bool, len(ct.names))
	prevEnd, prevDoc, prevPart := -1, "", ""
	ni := 0 // names before the current section
	for _, m := range sectionRE.FindAllStringSubmatchIndex(ct.text, -1) {
		for ni < len(ct.names) && ct.names[ni].end <= m[0] {
			ni++
		}
		line := ct.lineOf(m[0])
		c := citation{line: line}
		var lastName *nameAt
		if ni > 0 {
			lastName = &ct.names[ni-1]
		}
		switch {
		case lastName != nil && directGap.MatchString(ct.text[lastName.end:m[0]]):
			g := directGap.FindStringSubmatch(ct.text[lastName.end:m[0]])
			c.doc, c.part = lastName.name, g[1]
			used[ni-1] = true
		case prevDoc != "" && (lastName == nil || lastName.end <= prevEnd) && listGap.MatchString(ct.text[prevEnd:m[0]]):
			c.doc, c.part = prevDoc, prevPart
		default:
			c.doc, c.how = ct.infer(m[0], ni, fileNames, dirNames)
		}
		if c.how == "" {
			prevDoc, prevPart = c.doc, c.part
		} else {
			prevDoc, prevPart = "", ""
		}
		prevEnd = m[1]
		for _, g := range [][2]int{{m[2], m[3]}, {m[4], m[5]}} {
			if g[0] < 0 {
				continue
			}
			cc := c
			cc.section = normSection(ct.text[g[0]:g[1]])
			out = append(out, item{m[0], cc})
		}
	}
	for i, n := range ct.names {
		if !used[i] {
			out = append(out, item{n.start, citation{line: ct.lineOf(n.start), doc: n.name}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].off < out[j].off })
	cs := make([]citation, len(out))
	for i, it := range out {
		cs[i] = it.c
	}
	return cs
}

// infer settles the document of a section written without one: the
// document named last before it in its comment or paragraph, else the
// only one its file names, else the only one its directory names.
func (ct *citingText) infer(off, ni int, fileNames, dirNames map[string]bool) (doc, how string) {
	blk := ct.block[ct.lineOf(off)-1]
	if ni > 0 && ct.block[ct.lineOf(ct.names[ni-1].start)-1] == blk {
		return ct.names[ni-1].name, "comment"
	}
	if len(fileNames) == 1 {
		for n := range fileNames {
			return n, "file"
		}
	}
	if len(fileNames) == 0 && len(dirNames) == 1 {
		for n := range dirNames {
			return n, "directory"
		}
	}
	return "", ""
}

// normSection writes a section number as the heading index keys it:
// lower case, 8(a) as 8a.
func normSection(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("(", "", ")", "").Replace(s)
	return s
}

// specIndex maps each document (name without .md) to its numbered
// sections: "7.3", "8a", and "II/3" for section 3 of a part II.
type specIndex map[string]map[string]bool

func loadSpecIndex(dir string) (specIndex, error) {
	names, err := specFiles(dir)
	if err != nil {
		return nil, err
	}
	idx := specIndex{}
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		idx[strings.TrimSuffix(name, ".md")] = parseHeadings(string(src))
	}
	return idx, nil
}

var (
	headingRE = regexp.MustCompile(`^#{1,6}\s+§?(\d+(?:\([a-z]\)|[A-Za-z]\b)?(?:\.\d+)*)(?:\.|\s|$)`)
	partRE    = regexp.MustCompile(`^#{1,6}\s+Part\s+([IVX]+)\s*$`)
)

// parseHeadings returns the numbered sections of a Markdown document: the
// headings that start with a number (## 4. …, ### 4.9 …, #### 2.15.3 …,
// ### 8(a) …, ## 10A. …), outside code blocks.
func parseHeadings(text string) map[string]bool {
	secs := map[string]bool{}
	fence, part := false, ""
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if m := partRE.FindStringSubmatch(line); m != nil {
			part = m[1]
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			id := normSection(m[1])
			secs[id] = true
			if part != "" {
				secs[part+"/"+id] = true
			}
		}
	}
	return secs
}

// resolve returns why c does not resolve, or "".
func (idx specIndex) resolve(c citation) string {
	secs, ok := idx[c.doc]
	what := c.doc
	if c.section != "" {
		what += " §" + c.section
		if c.part != "" {
			what = c.doc + " Part " + c.part + " §" + c.section
		}
	}
	if c.how != "" {
		what += " (the document inferred from its " + c.how + ")"
	}
	switch {
	case !ok:
		return fmt.Sprintf("%s: no %s.md in %s", what, c.doc, specDir)
	case c.section == "":
		return ""
	case c.part != "" && !secs[c.part+"/"+c.section]:
		return fmt.Sprintf("%s: %s.md's part %s has no heading numbered %s", what, c.doc, c.part, c.section)
	case c.part == "" && !secs[c.section]:
		return fmt.Sprintf("%s: %s.md has no heading numbered %s", what, c.doc, c.section)
	}
	return ""
}
