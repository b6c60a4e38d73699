//go:build linux

package stream

import (
	"net"
	"net/netip"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxBatch is the most datagrams one sendmmsg call takes (UIO_MAXIOV).
const maxBatch = 1024

// batchConn is the ICE UDP socket. Between begin and flush, datagrams
// written to it (by any goroutine) are queued and then sent with sendmmsg,
// a few calls per frame instead of one per packet per viewer. Outside a
// batch it writes at once.
type batchConn struct {
	*net.UDPConn
	raw  syscall.RawConn
	inet bool // an AF_INET socket (else AF_INET6, perhaps dual stack)

	mu      sync.Mutex
	on      bool
	bufs    [][]byte
	names   []unix.RawSockaddrInet6
	hdrs    []unix.Mmsghdr
	iovs    []unix.Iovec
	pending int
}

func newBatchConn(c net.PacketConn) net.PacketConn {
	u, ok := c.(*net.UDPConn)
	if !ok {
		return c
	}
	raw, err := u.SyscallConn()
	if err != nil {
		return c
	}
	domain := -1
	if err := raw.Control(func(fd uintptr) {
		domain, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
	}); err != nil || (domain != unix.AF_INET && domain != unix.AF_INET6) {
		return c
	}
	return &batchConn{UDPConn: u, raw: raw, inet: domain == unix.AF_INET}
}

// ReadFromAddrPort and WriteToAddrPort let pion's UDP mux use netip
// addresses (ice.AddrPortReaderWriter).
func (c *batchConn) ReadFromAddrPort(b []byte) (int, netip.AddrPort, error) {
	return c.UDPConn.ReadFromUDPAddrPort(b)
}

func (c *batchConn) WriteToAddrPort(b []byte, to netip.AddrPort) (int, error) {
	c.mu.Lock()
	if c.on && (!c.inet || to.Addr().Unmap().Is4()) {
		c.queue(b, to)
		c.mu.Unlock()
		return len(b), nil
	}
	c.mu.Unlock()
	return c.UDPConn.WriteToUDPAddrPort(b, to)
}

func (c *batchConn) WriteTo(b []byte, to net.Addr) (int, error) {
	if u, ok := to.(*net.UDPAddr); ok {
		return c.WriteToAddrPort(b, u.AddrPort())
	}
	return c.UDPConn.WriteTo(b, to)
}

// begin starts queueing writes.
func (c *batchConn) begin() {
	c.mu.Lock()
	c.on = true
	c.mu.Unlock()
}

// flush sends what was queued and stops queueing. Errors are dropped, as
// UDP drops datagrams: loss recovery is the viewers' NACKs and PLIs.
func (c *batchConn) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.send()
	c.on = false
}

// queue copies one datagram into the batch; c.mu is held.
func (c *batchConn) queue(b []byte, to netip.AddrPort) {
	if c.pending == maxBatch {
		c.send()
	}
	i := c.pending
	if i == len(c.bufs) {
		c.bufs = append(c.bufs, make([]byte, 0, 1500))
		c.names = append(c.names, unix.RawSockaddrInet6{})
		c.hdrs = append(c.hdrs, unix.Mmsghdr{})
		c.iovs = append(c.iovs, unix.Iovec{})
	}
	c.bufs[i] = append(c.bufs[i][:0], b...)
	c.pending++
	var n uint32
	if c.inet {
		sa := (*unix.RawSockaddrInet4)(unsafe.Pointer(&c.names[i]))
		*sa = unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: to.Addr().Unmap().As4()}
		putPort(&sa.Port, to.Port())
		n = unix.SizeofSockaddrInet4
	} else {
		sa := &c.names[i]
		*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Addr: to.Addr().As16()}
		putPort(&sa.Port, to.Port())
		n = unix.SizeofSockaddrInet6
	}
	c.iovs[i] = unix.Iovec{Base: unsafe.SliceData(c.bufs[i])}
	c.iovs[i].SetLen(len(c.bufs[i]))
	h := &c.hdrs[i]
	*h = unix.Mmsghdr{}
	h.Hdr.Name = (*byte)(unsafe.Pointer(&c.names[i]))
	h.Hdr.Namelen = n
	h.Hdr.Iov = &c.iovs[i]
	h.Hdr.SetIovlen(1)
}

func putPort(p *uint16, port uint16) {
	b := (*[2]byte)(unsafe.Pointer(p))
	b[0], b[1] = byte(port>>8), byte(port)
}

// send writes the queued datagrams; c.mu is held.
func (c *batchConn) send() {
	done := 0
	for done < c.pending {
		var sent int
		var errno syscall.Errno
		err := c.raw.Write(func(fd uintptr) bool {
			r, _, e := syscall.Syscall6(unix.SYS_SENDMMSG, fd, uintptr(unsafe.Pointer(&c.hdrs[done])), uintptr(c.pending-done), 0, 0, 0)
			if e == syscall.EAGAIN {
				return false // wait until the socket can be written
			}
			sent, errno = int(r), e
			return true
		})
		if err != nil {
			break // the socket is closed
		}
		if errno != 0 || sent <= 0 {
			// A datagram the kernel refuses (e.g. no route to a viewer that
			// left) is skipped; the rest are still sent.
			sent = 1
		}
		done += sent
	}
	c.pending = 0
}
