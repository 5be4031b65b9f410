package energy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	dec := json.NewDecoder(r)
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
