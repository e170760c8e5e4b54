package report

import "errors"

// ErrBadInput is matched (errors.Is) by every error about a results
// directory that cannot be read or parsed, as opposed to a failure to write
// the report.
var ErrBadInput = errors.New("unreadable results")
