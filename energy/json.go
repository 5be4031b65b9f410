package energy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Load reads a model from its JSON form, a Spec:
//
//	{"domains": [
//	  {"cpus": [0, 1], "capacity": 512, "states": [
//	    {"frequency_khz": 500000, "power_uw": 100000},
//	    {"frequency_khz": 1000000, "power_uw": 400000}]},
//	  {"cpus": [2, 3], "dynamic_power_coefficient": 379, "states": [
//	    {"frequency_khz": 1000000, "voltage_mv": 700}, …]}]}
//
// The decode is strict: an unknown field, a value of the wrong type or
// trailing data is an error naming the field. Every error wraps
// ErrBadModel.
func Load(r io.Reader) (*Model, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadModel, err)
	}
	// encoding/json matches field names regardless of case; a model's
	// keys must be spelled exactly.
	var raw any
	if err := json.Unmarshal(data, &raw); err == nil {
		if err := exactKeys(raw, "", specKeys); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Spec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrBadModel, jsonErr(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the model's JSON object", ErrBadModel)
	}
	return New(s)
}

// keySet lists a JSON object's fields and, for those that hold objects or
// arrays of objects, their own fields.
type keySet map[string]keySet

var specKeys = keySet{"domains": {
	"cpus": nil, "capacity": nil, "dynamic_power_coefficient": nil, "artificial": nil, "keep_inefficient": nil,
	"states": {"frequency_khz": nil, "power_uw": nil, "voltage_mv": nil, "cost": nil},
}}

// exactKeys checks that every object key of v, at path, is one of keys
// spelled exactly, and descends into the fields that have fields.
func exactKeys(v any, path string, keys keySet) error {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			if err := exactKeys(e, fmt.Sprintf("%s[%d]", path, i), keys); err != nil {
				return err
			}
		}
	case map[string]any:
		// In sorted order, so that of several unknown keys the same one
		// is reported every time.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			e := v[k]
			sub, ok := keys[k]
			if !ok {
				return fmt.Errorf("%w: %s: unknown field %q", ErrBadModel, strings.TrimPrefix(path+"."+k, "."), k)
			}
			if sub != nil {
				if err := exactKeys(e, strings.TrimPrefix(path+"."+k, "."), sub); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// LoadBytes is Load of a byte slice.
func LoadBytes(b []byte) (*Model, error) { return Load(bytes.NewReader(b)) }

// jsonErr words a decoding error with the field it concerns.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s: a JSON %s where %s was expected", te.Field, te.Value, te.Type)
	}
	return err.Error() // unknown fields and syntax errors name their place already
}

// MarshalJSON writes the model as Load reads it (its Spec).
func (m *Model) MarshalJSON() ([]byte, error) { return json.Marshal(m.Spec()) }
