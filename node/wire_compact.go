package node

import (
	"fmt"

	"github.com/consim/consim/consensus/compress"
)

// Compact data frames (FrameCompact) carry a message whose Enc is a
// compact encoding: the usual header and destination list, then the
// payload of compress.AppendPayload, count bytes long. DecodeHeader checks
// the payload in full (compress.CheckPayload, at most maxFrameCount
// values), so a malformed payload is a malformed frame, counted and
// dropped like any other, and DecodeValues gives back exactly the values
// the sender encoded. A message with the zero (dense) Enc is a FrameData
// frame as before.

// AppendDataTo appends the data frame of the values data, with wire
// encoding enc, from agent from to the destinations to: a FrameData frame
// when enc is dense, a FrameCompact frame otherwise. It fails when data
// does not fit enc (see compress.PayloadLen).
func AppendDataTo(dst []byte, from int, to []int, round, phase int, enc compress.Encoding, data []float64) ([]byte, error) {
	if !enc.Compact() {
		return AppendFrameTo(dst, FrameData, from, to, round, phase, data)
	}
	if len(data) > maxFrameCount {
		return dst, fmt.Errorf("node: encode compact frame: %d values exceed the limit %d", len(data), maxFrameCount)
	}
	size, err := compress.PayloadLen(enc, data)
	if err != nil {
		return dst, fmt.Errorf("node: encode compact frame: %w", err)
	}
	if err := checkFrame(FrameCompact, from, to, round, phase, size); err != nil {
		return dst, err
	}
	start := len(dst)
	dst, b := growFrame(dst, FrameCompact, from, to, round, phase, size, size)
	body := HeaderLen + 4*len(to)
	if _, err := compress.AppendPayload(b[:body], enc, data); err != nil {
		return dst[:start], fmt.Errorf("node: encode compact frame: %w", err) // not reached: PayloadLen checked data
	}
	return dst, nil
}

// dataFrameLen is the length of the frame AppendDataTo writes for data
// with encoding enc and nto destinations.
func dataFrameLen(nto int, enc compress.Encoding, data []float64) (int, error) {
	size, err := compress.PayloadLen(enc, data)
	return HeaderLen + 4*nto + size, err
}

// checkCompact validates the length and payload of a compact frame whose
// address h decodeAddress returned.
func checkCompact(frame []byte, h Header) error {
	if len(frame) != h.body()+h.Count {
		return fmt.Errorf("node: %w: compact frame from agent %d declares %d payload bytes and %d destinations in %d bytes",
			ErrMalformedFrame, h.From, h.Count, h.NTo, len(frame))
	}
	if _, err := compress.CheckPayload(frame[h.body():], maxFrameCount); err != nil {
		return fmt.Errorf("node: %w: compact frame from agent %d: %w", ErrMalformedFrame, h.From, err)
	}
	return nil
}

// compactValues decodes the payload of a compact frame that DecodeHeader
// accepted into dst.
func compactValues(dst []float64, frame []byte, h Header) []float64 {
	v, _, err := compress.DecodePayload(dst, frame[h.body():], maxFrameCount)
	if err != nil {
		// DecodeHeader checked the payload with the same parser.
		panic(fmt.Sprintf("node: compact frame from agent %d passed DecodeHeader but does not decode: %v", h.From, err))
	}
	return v
}
