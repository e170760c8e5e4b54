package registry

import (
	"errors"

	"github.com/consim/consim/consensus"
)

// AsyncRunner is implemented by the Run of an Async algorithm, whose
// agents are asynchronous (consensus.AsyncAgent): they have no rounds and
// run only on an asynchronous runtime (a scenario's async section: the
// event engine in simulated time, or the real-time driver). Such a Run's
// Agent method returns an error wrapping ErrAsyncOnly.
type AsyncRunner interface {
	// AsyncAgent builds agent i's state machine, 0 <= i < Env.N.
	AsyncAgent(i int) (consensus.AsyncAgent, error)
}

// ErrAsyncOnly is wrapped by the error of Run.Agent of an asynchronous
// algorithm.
var ErrAsyncOnly = errors.New("the algorithm is asynchronous: it runs only with a scenario's async section")
