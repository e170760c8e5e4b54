package consensus

// Evaluation fan-out: reverse communication for oracle work.
//
// An agent that needs many independent evaluations in one phase (the k
// perturbed function values of a zeroth-order gradient estimator, say)
// puts them in Outbox.Evals instead of computing them itself. The runtime
// spreads the requests over the run's oracle workers and hands the results
// back in Inbox.Evals, in request order. The algorithm states what it
// needs; the runtime decides where it is computed, as gonum/optimize's
// Method and Operation do.
//
// Results do not depend on the number of workers or on the transport:
// every request is evaluated by an Oracle, which is a pure function of the
// request, and the results are returned in the order the requests were
// made. A request whose evaluation fails, on whichever worker, fails the
// phase: the runtime ends the agent's run with an error that names the
// request, and Receive is not called. (Package node documents where the
// workers run: goroutines of the agent's process, or subscribers of a
// NATS queue group.)

// EvalRequest is one independent evaluation asked of an oracle worker.
type EvalRequest struct {
	// Op selects the oracle operation, in the algorithm's own numbering.
	Op int
	// Key is common randomness the oracle may use instead of data the
	// request would otherwise carry (e.g. graph.Hash of the round and the
	// request's index, from which the worker draws a random direction), so
	// that both ends derive the same values without sending them.
	Key uint64
	// Arg is the operation's argument, typically a point x. The runtime
	// encodes it before Receive is called, so the agent may reuse it
	// afterwards.
	Arg []float64
}

// Oracle evaluates requests on an oracle worker. Evaluate must be a pure,
// deterministic function of req: the same request gives the same values,
// bit for bit, on every worker, and it must not retain req.Arg. It appends
// the values to out and returns the extended slice. The runtime never
// calls one Oracle from two goroutines at once, so an Oracle may keep
// scratch buffers.
type Oracle interface {
	Evaluate(req EvalRequest, out []float64) ([]float64, error)
}
