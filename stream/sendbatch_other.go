//go:build !linux

package stream

import "net"

// newBatchConn batches only on Linux (sendmmsg); elsewhere every datagram
// is written at once.
func newBatchConn(c net.PacketConn) net.PacketConn { return c }
