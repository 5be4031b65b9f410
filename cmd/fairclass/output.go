package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// output is a file that a subcommand writes, named by one of its flags.
// Outputs are opened before the work that fills them, so that a path that
// cannot be written is an error at once rather than after a long
// simulation. An existing file is left as it was until it is written; a
// file that did not exist is removed again if the command fails.
type output struct {
	flag    string // the flag that names it, "--json"
	path    string // "" when the flag was not given
	f       *os.File
	created bool
}

// openOutputs opens every output that has a path, after checking that
// none is empty when its flag was given (set), that no two name the same
// file and that none names one of the inputs. Its error names the flag and
// the path; on error, nothing is left open or created.
func openOutputs(outs []*output, set func(flag string) bool, inputs ...string) error {
	err := checkOutputs(outs, set, inputs)
	for _, o := range outs {
		if err != nil || o.path == "" {
			continue
		}
		err = o.open()
	}
	if err != nil {
		discard(outs)
	}
	return err
}

func checkOutputs(outs []*output, set func(flag string) bool, inputs []string) error {
	for i, o := range outs {
		if o.path == "" {
			if set(o.flag) {
				return fmt.Errorf("%s: empty file name", o.flag)
			}
			continue
		}
		for _, in := range inputs {
			if sameFile(o.path, in) {
				return fmt.Errorf("%s %s: that is an input of the command; it would be overwritten", o.flag, o.path)
			}
		}
		for _, p := range outs[:i] {
			if p.path != "" && sameFile(o.path, p.path) {
				return fmt.Errorf("%s %s: %s names the same file", o.flag, o.path, p.flag)
			}
		}
	}
	return nil
}

// sameFile reports whether two paths name one file: the same cleaned
// absolute path, or, if both exist, the same file by os.SameFile.
func sameFile(a, b string) bool {
	if b == "" || b == "-" {
		return false
	}
	aa, erra := filepath.Abs(a)
	ab, errb := filepath.Abs(b)
	if erra == nil && errb == nil && aa == ab {
		return true
	}
	sa, erra := os.Stat(a)
	sb, errb := os.Stat(b)
	return erra == nil && errb == nil && os.SameFile(sa, sb)
}

// open opens o for writing, creating it if need be, without truncating
// it.
func (o *output) open() error {
	_, statErr := os.Stat(o.path)
	f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE, 0o666)
	if err != nil {
		var pe *fs.PathError
		switch dir := filepath.Dir(o.path); {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s %s: directory %s does not exist", o.flag, o.path, dir)
		case errors.As(err, &pe):
			return fmt.Errorf("%s %s: %v", o.flag, o.path, pe.Err)
		}
		return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return fmt.Errorf("%s %s: is a directory", o.flag, o.path)
	}
	o.f, o.created = f, errors.Is(statErr, fs.ErrNotExist)
	return nil
}

// writer empties the file, if it is a regular file (not /dev/stdout or a
// named pipe), and returns it for writing.
func (o *output) writer() (io.Writer, error) {
	st, err := o.f.Stat()
	if err == nil && st.Mode().IsRegular() {
		err = o.f.Truncate(0)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return o.f, nil
}

// write replaces the file's contents with what fill writes, and closes
// it.
func (o *output) write(fill func(io.Writer) error) error {
	f, err := o.writer()
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = fill(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := o.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return nil
}

// close closes the file if it is open.
func (o *output) close() error {
	if o.f == nil {
		return nil
	}
	err := o.f.Close()
	o.f = nil
	return err
}

// discard closes every output and removes those that openOutputs
// created: a failed command leaves no empty or partial new files.
func discard(outs []*output) {
	for _, o := range outs {
		if o.f != nil {
			o.close()
			if o.created {
				os.Remove(o.path)
			}
		}
	}
}
