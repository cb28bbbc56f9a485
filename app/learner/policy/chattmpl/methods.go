package chattmpl

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2/builtins"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// dictMethods are the Python dict methods templates call. gonja hands a
// method a copy of the dictionary as a Go map, which loses the order, so
// the reading methods work on the ordered value itself.
func dictMethods() *exec.MethodSet[map[string]any] {
	set := map[string]exec.Method[map[string]any]{
		"items": func(_ map[string]any, self *exec.Value, args *exec.VarArgs) (any, error) {
			return pairList(dictPairs(self)), noArgs("items", args)
		},
		"keys": func(_ map[string]any, self *exec.Value, args *exec.VarArgs) (any, error) {
			pairs := dictPairs(self)
			out := make([]any, len(pairs))
			for i, p := range pairs {
				out[i] = p.Key.Interface()
			}
			return out, noArgs("keys", args)
		},
		"values": func(_ map[string]any, self *exec.Value, args *exec.VarArgs) (any, error) {
			pairs := dictPairs(self)
			out := make([]any, len(pairs))
			for i, p := range pairs {
				out[i] = p.Value.Interface()
			}
			return out, noArgs("values", args)
		},
		"get": dictGetMethod,
	}
	// The mutating methods keep gonja's behaviour.
	for _, name := range []string{"pop", "setdefault", "update", "copy", "clear"} {
		if m, ok := builtins.Methods.Dict.Get(name); ok {
			set[name] = m
		}
	}
	return exec.NewMethodSet(set)
}

func noArgs(name string, args *exec.VarArgs) error {
	if len(args.Args) > 0 || len(args.KwArgs) > 0 {
		return exec.ErrInvalidCall(fmt.Errorf("%s() takes no arguments", name))
	}
	return nil
}

// dictGetMethod is dict.get(key[, default]).
func dictGetMethod(_ map[string]any, self *exec.Value, args *exec.VarArgs) (any, error) {
	if len(args.Args) < 1 || len(args.Args) > 2 {
		return nil, exec.ErrInvalidCall(errors.New("get() takes 1 or 2 positional arguments"))
	}
	key := args.Args[0]
	for _, p := range dictPairs(self) {
		if p.Key.EqualValueTo(key) {
			return p.Value.Interface(), nil
		}
	}
	if len(args.Args) == 2 {
		return args.Args[1].Interface(), nil
	}
	return noneValue, nil
}

// RaiseError is the error of a template that called raise_exception.
type RaiseError struct {
	Message string
}

func (e *RaiseError) Error() string {
	return "chat template: " + e.Message
}

// renderGlobals returns the functions Hugging Face gives every template,
// bound to one rendering: raise_exception records its message in raised,
// strftime_now reads now.
func renderGlobals(now func() time.Time, raised **RaiseError) map[string]any {
	return map[string]any{
		"raise_exception": func(msg string) (any, error) {
			*raised = &RaiseError{Message: msg}
			return nil, *raised
		},
		"strftime_now": func(format string) string {
			return strftime(format, now())
		},
	}
}

// strftime formats t as Python's time.strftime does in the C locale.
func strftime(format string, t time.Time) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		if s, ok := strftimeField(format[i], t); ok {
			b.WriteString(s)
		} else {
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}

// strftimeField formats one %-directive.
func strftimeField(c byte, t time.Time) (string, bool) {
	layouts := map[byte]string{
		'a': "Mon", 'A': "Monday", 'b': "Jan", 'B': "January", 'h': "Jan",
		'd': "02", 'm': "01", 'y': "06", 'Y': "2006", 'H': "15", 'I': "03",
		'M': "04", 'S': "05", 'p': "PM", 'Z': "MST", 'z': "-0700",
		'c': "Mon Jan _2 15:04:05 2006", 'x': "01/02/06", 'X': "15:04:05",
		'D': "01/02/06", 'T': "15:04:05", 'R': "15:04", 'F': "2006-01-02",
		'e': "_2",
	}
	if l, ok := layouts[c]; ok {
		return t.Format(l), true
	}
	switch c {
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay()), true
	case 'f':
		return fmt.Sprintf("%06d", t.Nanosecond()/1000), true
	case 'w':
		return fmt.Sprint(int(t.Weekday())), true
	case 'u':
		return fmt.Sprint((int(t.Weekday())+6)%7 + 1), true
	case '%':
		return "%", true
	case 'n':
		return "\n", true
	case 't':
		return "\t", true
	}
	return "", false
}
