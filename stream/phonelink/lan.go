package phonelink

import "net"

// LANAddresses returns the machine's non-loopback unicast addresses, IPv4
// first, then IPv6, in interface order: the addresses a phone on the same
// Wi-Fi can open. Link-local addresses (169.254/16, fe80::/10) are left
// out: a browser cannot use an IPv6 one without a zone, and an IPv4 one
// means the network gave no address. It returns nil if it finds none.
func LANAddresses() []net.IP {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var all []ifaceAddrs
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		all = append(all, ifaceAddrs{ifc.Flags, addrs})
	}
	return pickLAN(all)
}

type ifaceAddrs struct {
	flags net.Flags
	addrs []net.Addr
}

// pickLAN is LANAddresses without the system calls, for tests.
func pickLAN(ifs []ifaceAddrs) []net.IP {
	var v4, v6 []net.IP
	seen := map[string]bool{}
	for _, ifc := range ifs {
		if ifc.flags&net.FlagUp == 0 || ifc.flags&net.FlagLoopback != 0 {
			continue
		}
		for _, a := range ifc.addrs {
			var ip net.IP
			switch a := a.(type) {
			case *net.IPNet:
				ip = a.IP
			case *net.IPAddr:
				ip = a.IP
			}
			// IsGlobalUnicast excludes loopback, link-local and multicast;
			// it includes the private ranges, which are what a LAN has.
			if ip == nil || !ip.IsGlobalUnicast() || seen[ip.String()] {
				continue
			}
			seen[ip.String()] = true
			if ip4 := ip.To4(); ip4 != nil {
				v4 = append(v4, ip4)
			} else {
				v6 = append(v6, ip)
			}
		}
	}
	return append(v4, v6...)
}
