package coordinator

import (
	"testing"
	"time"
)

func TestAgentErrorMessages(t *testing.T) {
	tests := []struct {
		err  *AgentError
		want string
	}{
		{&AgentError{ID: 3, Round: 120, Silent: 10 * time.Second, Kind: ErrUnresponsive}, "agent 3 stopped answering (last status at round 120, 10s ago)"},
		{&AgentError{ID: 0, Round: -1, Silent: 1500 * time.Millisecond, Kind: ErrUnresponsive}, "agent 0 stopped answering (no status since start, 1.5s ago)"},
		{&AgentError{ID: 2, Round: 7, Msg: "NaN in x", Kind: ErrAgentFailed}, "agent 2 failed (last status at round 7): NaN in x"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
