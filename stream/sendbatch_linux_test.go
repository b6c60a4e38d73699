//go:build linux

package stream

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"
)

// TestBatchConn: datagrams written inside a batch arrive whole, in order
// and at the right address once it is flushed (more than one sendmmsg's
// worth too), on an IPv4 and on a dual-stack socket; outside a batch they
// go at once.
func TestBatchConn(t *testing.T) {
	for _, c := range []struct{ listen, to string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"[::]:0", "127.0.0.1"}, // dual stack, to an IPv4 viewer
		{"[::]:0", "::1"},
	} {
		t.Run(c.listen+"->"+c.to, func(t *testing.T) {
			pc, err := net.ListenPacket("udp", c.listen)
			if err != nil {
				t.Skip(err)
			}
			conn := newBatchConn(pc)
			defer conn.Close()
			b, ok := conn.(*batchConn)
			if !ok {
				t.Fatalf("%T does not batch", conn)
			}
			var rx [2]*net.UDPConn
			var to [2]netip.AddrPort
			for i := range rx {
				r, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.AddrPortFrom(netip.MustParseAddr(c.to), 0)))
				if err != nil {
					t.Skip(err)
				}
				defer r.Close()
				_ = r.SetReadBuffer(4 << 20)
				rx[i], to[i] = r, r.LocalAddr().(*net.UDPAddr).AddrPort()
			}
			msg := func(i int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("%05d|", i)), 1+i%200) }
			read := func(r *net.UDPConn, want []byte) {
				t.Helper()
				buf := make([]byte, 2048)
				_ = r.SetReadDeadline(time.Now().Add(5 * time.Second))
				n, _, err := r.ReadFromUDPAddrPort(buf)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf[:n], want) {
					t.Fatalf("got %q..., want %q...", buf[:min(n, 12)], want[:12])
				}
			}

			// Outside a batch: at once.
			if _, err := b.WriteToAddrPort(msg(7), to[0]); err != nil {
				t.Fatal(err)
			}
			read(rx[0], msg(7))

			// Inside a batch: nothing until the flush.
			b.begin()
			for i := 0; i < 10; i++ {
				w := msg(i)
				if _, err := b.WriteToAddrPort(w, to[i%2]); err != nil {
					t.Fatal(err)
				}
				w[0] = 'X' // the caller may reuse its buffer
			}
			// net.Addr writes (pion uses both) join the batch too.
			if _, err := b.WriteTo(msg(10), net.UDPAddrFromAddrPort(to[0])); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
			_ = rx[0].SetReadDeadline(time.Now().Add(10 * time.Millisecond))
			if _, _, err := rx[0].ReadFromUDPAddrPort(make([]byte, 2048)); err == nil {
				t.Fatal("a datagram left before the flush")
			}
			b.flush()
			for i := 0; i < 10; i++ {
				read(rx[i%2], msg(i))
			}
			read(rx[0], msg(10))

			// More than one sendmmsg takes.
			const n = maxBatch + 300
			b.begin()
			for i := 0; i < n; i++ {
				if _, err := b.WriteToAddrPort(msg(i), to[i%2]); err != nil {
					t.Fatal(err)
				}
			}
			b.flush()
			for i := 0; i < n; i++ {
				read(rx[i%2], msg(i))
			}
			// And after it, at once again.
			if _, err := b.WriteToAddrPort(msg(3), to[1]); err != nil {
				t.Fatal(err)
			}
			read(rx[1], msg(3))
		})
	}
}
