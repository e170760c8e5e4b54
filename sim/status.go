package sim

import (
	"errors"

	"github.com/consim/consim/coordinator"
)

// endStatus sets the summary's status, stop cause and reason of a run the
// coordinator does not observe (the stepped engine, asynchronous runs)
// from its error and the cause it stopped for.
func endStatus(sum *coordinator.Summary, runErr error, cause string) {
	sum.Status, sum.StopCause = coordinator.StatusOK, cause
	switch {
	case errors.Is(runErr, coordinator.ErrDiverged):
		sum.Status, sum.StopCause, sum.Reason = coordinator.StatusDiverged, coordinator.StopDiverged, runErr.Error()
	case runErr != nil && cause == coordinator.StopInterrupted:
		sum.Status, sum.Reason = coordinator.StatusFailed, runErr.Error()
	case runErr != nil:
		sum.Status, sum.StopCause, sum.Reason = coordinator.StatusFailed, coordinator.StopError, runErr.Error()
	}
}
