package node

// Bytes on the wire. Traffic.BytesSent and BytesRecv count what an
// agent's frames occupy on the transport: the frame (header, destination
// list, values or compact payload) and, on NATS, the MAC that seals each
// message, once per message published: once per frame in the shared
// layout, once per destination in the per-destination layout (see
// NATSOptions.PerDestination). The channel transport and the in-process
// NATS transport, which seal nothing, count the frame alone.

// envelope is implemented by endpoints whose messages carry more than the
// bare frame.
type envelope interface {
	// wireLen is the number of bytes that publishing a frame of n bytes
	// with nto destinations (0: every agent) puts on the wire, or, for
	// nto < 0, the bytes of one received message that carried it.
	wireLen(n, nto int) int
}

// wireLen is the bytes on the wire of frame f sent to nto destinations
// (0: every agent), or received (nto < 0).
func (r *runner) wireLen(f []byte, nto int) int64 {
	if r.envelope == nil {
		return int64(len(f))
	}
	return int64(r.envelope.wireLen(len(f), nto))
}

// wireLen implements envelope: the frame and its MAC, once per message
// published.
func (e *natsEndpoint) wireLen(n, nto int) int {
	n += e.bus.t.mac.tagLen()
	if e.bus.t.opts.PerDestination && nto > 0 {
		return nto * n
	}
	return n
}
