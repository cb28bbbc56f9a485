package config

import (
	"fmt"
	"reflect"
	"strconv"
)

// Defaults returns the configuration with every key at its default.
func Defaults() Config {
	var c Config
	for _, f := range Fields() {
		if err := c.setNormalized(f, f.Default); err != nil {
			panic(fmt.Sprintf("config: default of %s: %v", f.Key, err))
		}
	}
	return c
}

// Get returns the value of key as canonical text. Secrets are returned in
// clear: use Display for anything a person or a log will see.
func (c *Config) Get(key string) (string, error) {
	f, ok := Lookup(key)
	if !ok {
		return "", &Error{Key: key, Reason: "unknown key"}
	}
	return c.get(f), nil
}

func (c *Config) get(f Field) string {
	v := reflect.ValueOf(c).Elem().FieldByIndex(f.index)
	switch f.Kind {
	case Int:
		return strconv.FormatInt(v.Int(), 10)
	case Float:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case Bool:
		return strconv.FormatBool(v.Bool())
	}
	return v.String()
}

// Display returns the value of key as a person should see it: secrets are
// masked, showing only whether they are set.
func (c *Config) Display(key string) (string, error) {
	f, ok := Lookup(key)
	if !ok {
		return "", &Error{Key: key, Reason: "unknown key"}
	}
	v := c.get(f)
	if f.Secret {
		return Mask(v), nil
	}
	return v, nil
}

// Mask hides a secret: "" stays "", anything else becomes "********".
func Mask(secret string) string {
	if secret == "" {
		return ""
	}
	return "********"
}

// Set validates value and stores it under key (or an alias of it).
func (c *Config) Set(key, value string) error {
	f, v, err := Normalize(key, value)
	if err != nil {
		return err
	}
	return c.setNormalized(f, v)
}

func (c *Config) setNormalized(f Field, v string) error {
	fv := reflect.ValueOf(c).Elem().FieldByIndex(f.index)
	switch f.Kind {
	case Int:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil && v != "" {
			return err
		}
		fv.SetInt(n)
	case Float:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil && v != "" {
			return err
		}
		fv.SetFloat(x)
	case Bool:
		fv.SetBool(v == "true")
	default:
		fv.SetString(v)
	}
	return nil
}

// Diff returns the canonical keys whose values differ between c and o.
func (c *Config) Diff(o *Config) []string {
	var out []string
	for _, f := range Fields() {
		if c.get(f) != o.get(f) {
			out = append(out, f.Key)
		}
	}
	return out
}
