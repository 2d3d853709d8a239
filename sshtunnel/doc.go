// Package sshtunnel reaches adb servers on lab hosts through SSH: one SSH
// connection per lab host (golang.org/x/crypto/ssh), and one direct-tcpip
// channel (RFC 4254 section 7.2) to the host's adb server for every adb
// connection, so the adb server listens on the lab host's loopback only and
// nothing crosses the lab network unauthenticated or in the clear.
//
// A Tunnel is an adb.DialFunc source: package adb stays unaware of SSH.
// Host keys are checked against a known_hosts file (OpenSSH's sshd(8)
// "SSH_KNOWN_HOSTS FILE FORMAT"); an unknown or changed key is refused.
// Only this package imports golang.org/x/crypto/ssh.
package sshtunnel
