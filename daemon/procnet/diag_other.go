//go:build !linux

package procnet

import "net/netip"

// diagOwner: only Linux has inet_diag (and /proc/net/tcp); find says so.
func diagOwner(local, remote netip.AddrPort) (int, error) { return 0, ErrUnsupported }
