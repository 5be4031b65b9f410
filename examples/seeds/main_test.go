package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOutWritesEveryFile runs the command as --out uses it, in quick mode
// with one simulation seed: every experiment must finish, print its
// verdicts and the summary, and leave its reports and plots in the
// directory.
func TestOutWritesEveryFile(t *testing.T) {
	seeds, want := "000,002,003,004", []string{
		"seed000-latency-tail.png", "seed000-figure1-per-seed.png", "seed000-patched-s1.json", "seed000-patched-s1.csv",
		"seed002-latency-tail.png", "seed002-figure1-per-seed.png", "seed002-figure2-per-seed.png",
		"seed003-figure1-per-seed.png", "seed003-figure2-per-seed.png", "seed003-pipe-thread-1-group-patch-s1.json",
		"seed004-share-bump.png", "seed004-figure1-per-seed.png", "seed004-figure2-per-seed.png", "seed004-figure3-per-seed.png",
		"seed004-merged-s1.json", "seed004-core-merged-s1.csv",
	}
	if testing.Short() {
		// Seed 004's CPU-share plot is the one that needs a sampled
		// series; seed 003 is the quickest of the others.
		seeds = "003,004"
		want = slices.DeleteFunc(want, func(f string) bool {
			return strings.HasPrefix(f, "seed000") || strings.HasPrefix(f, "seed002")
		})
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"--quick", "--runs", "1", "--seeds", seeds, "--out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", code, errb.String(), out.String())
	}
	if !strings.Contains(out.String(), "reported directions reproduced") {
		t.Errorf("no summary line:\n%s", out.String())
	}
	for _, id := range strings.Split(seeds, ",") {
		if !strings.Contains(out.String(), "=== seed "+id) {
			t.Errorf("seed %s printed nothing", id)
		}
	}
	// Every verdict printed has its figure, numbered from 1 without gaps.
	for _, id := range strings.Split(seeds, ",") {
		_, section, _ := strings.Cut(out.String(), "=== seed "+id)
		section, _, _ = strings.Cut(section, "=== seed")
		verdicts := strings.Count(section, "reproduced] ")
		figs, err := filepath.Glob(filepath.Join(dir, "seed"+id+"-figure*-per-seed.png"))
		if err != nil {
			t.Fatal(err)
		}
		if len(figs) != verdicts {
			t.Errorf("seed %s: %d verdicts, %d figures: %v", id, verdicts, len(figs), figs)
		}
		for i := 1; i <= verdicts; i++ {
			if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("seed%s-figure%d-per-seed.png", id, i))); err != nil {
				t.Errorf("seed %s: figure %d of %d missing: %v", id, i, verdicts, err)
			}
		}
	}
	for _, name := range want {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		switch filepath.Ext(name) {
		case ".png":
			if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("%s is not a PNG file", name)
			}
		case ".json":
			if !json.Valid(data) {
				t.Errorf("%s is not valid JSON", name)
			}
		case ".csv":
			if !bytes.HasPrefix(data, []byte("scope,name,metric,value\n")) {
				t.Errorf("%s does not start with the CSV header: %.40q", name, data)
			}
		}
	}
}

// --quick prints, above its tables, that they can contradict the full
// run; a full run does not.
func TestQuickWarnsAboveItsTables(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--quick", "--runs", "1", "--seeds", "003", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	warn := strings.Index(out.String(), "can point the other way from the full run")
	table := strings.Index(out.String(), "=== seed 003")
	if warn < 0 || table < 0 || warn > table {
		t.Errorf("no warning above the tables:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "+209 %") || !strings.Contains(out.String(), "-47 %") {
		t.Errorf("the warning lacks seed 000's example:\n%s", out.String())
	}
	if errb.Len() != 0 {
		t.Errorf("--quiet wrote to stderr: %q", errb.String())
	}
	if strings.Contains(quickWarning, "\r") {
		t.Error("the warning holds a carriage return")
	}
}

// Progress: nothing with --quiet, plain lines (no carriage return) when
// stderr is not a terminal, a bar redrawn in place when it is.
func TestProgressStyles(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is a terminal")
	}
	if got := progressMode(options{}, f); got != progressLines {
		t.Errorf("progress to a file: style %d, want plain lines", got)
	}
	if got := progressMode(options{quiet: true}, f); got != progressNone {
		t.Errorf("--quiet: style %d, want none", got)
	}
	for _, tt := range []struct {
		style progressStyle
		want  string
	}{
		{progressNone, ""},
		{progressLines, "seed 000: 25%\nseed 000: 50%\nseed 000: 75%\nseed 000: 100%\n"},
	} {
		var b bytes.Buffer
		p := newProgress(&b, "seed 000", tt.style)
		p.start = p.start.Add(-2 * time.Second) // past the first second's silence
		for i := 0; i <= 100; i++ {
			p.update(float64(i) / 100)
		}
		p.done()
		if b.String() != tt.want {
			t.Errorf("style %d: wrote %q, want %q", tt.style, b.String(), tt.want)
		}
	}
	var b bytes.Buffer
	p := newProgress(&b, "seed 000", progressBar)
	p.start = p.start.Add(-2 * time.Second)
	p.update(0.5)
	p.done()
	if !strings.HasPrefix(b.String(), "\rseed 000 [===============               ]  50%") {
		t.Errorf("bar: wrote %q", b.String())
	}
}
