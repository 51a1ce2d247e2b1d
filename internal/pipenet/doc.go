// Package pipenet serves an http.Handler over in-memory connections made with net.Pipe.
//
// It exists for tests that run inside a testing/synctest bubble: loopback sockets are not
// "durably blocking" there, so a client and server talking over 127.0.0.1 make the bubble hang,
// while net.Pipe connections are plain channels and let virtual time advance. The server is a
// real net/http server and the client a real net/http transport, so a handler that hijacks and
// closes its connection reaches the client as the transport error it would be on a network
// (EOF or unexpected EOF while reading the response).
//
// A Line between the two breaks connections as a network does, one Fault per request: a refused
// dial, a cut before or after the request was written, a pooled connection the peer closed.
//
// Make the Server inside the bubble that uses it and Close it before the bubble ends.
package pipenet
