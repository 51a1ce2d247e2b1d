package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"

	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/webhook"
)

// loopbackNames are the names a control request may give in its Host on any address, with the
// port.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// exposeControl is the handler of srv in o's dialect, and of its webhooks if not nil, for a PSP
// bound to bound: with the control API on a loopback address, else only with a control token.
// A control request's Host must name the address asked for (o.addr), the address bound, a
// loopback name or one of o.controlHosts. Bound to any other than a loopback address, it warns
// on stderr. It returns the error of o.front.
func (o options) exposeControl(srv *psp.Server, webhooks *webhook.Sender, bound net.Addr, stderr io.Writer) (h http.Handler,
	on bool, err error) {
	tcp, _ := bound.(*net.TCPAddr)
	loopback := tcp != nil && tcp.IP.IsLoopback()
	on = loopback || o.controlToken != ""
	if !loopback {
		status := "the control API is off; -control-token turns it on"
		if on {
			status = "the control API answers only with the control token"
		}
		fmt.Fprintf(stderr, "psp: WARNING: %s is not a loopback address: other machines can reach it and "+
			"pay with the tokens; %s\n", bound, status)
	}
	front, err := o.front(srv)
	if err != nil || !on {
		return front.payments, false, err
	}
	h, err = control.NewHandler(srv, control.Options{
		Token:    o.controlToken,
		Hosts:    append(controlHosts(o.addr, bound.String()), o.controlHosts...),
		Webhooks: webhooks,
		Payments: front.payments,
		Paths:    front.paths,
		OnReset:  front.reset,
	})
	return h, true, err
}

// controlHosts are the Host values that name a PSP asked to listen on addr and bound to bound:
// the host asked for, the loopback names and the address bound, each with the port bound, but
// for a wildcard address (0.0.0.0, ::). On port 80 each is also allowed without it.
func controlHosts(addr, bound string) []string {
	asked, _, _ := net.SplitHostPort(addr)
	ip, port, _ := net.SplitHostPort(bound)
	var hosts []string
	for _, name := range append(append([]string{asked}, loopbackNames...), ip) {
		host := net.JoinHostPort(name, port)
		if name == "" || net.ParseIP(name).IsUnspecified() || slices.Contains(hosts, host) {
			continue
		}
		hosts = append(hosts, host)
		if port == "80" {
			hosts = append(hosts, strings.TrimSuffix(host, ":80"))
		}
	}
	return hosts
}
