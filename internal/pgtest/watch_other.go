//go:build !unix

package pgtest

// watch does nothing where there is no /bin/sh: the next Start's sweep stops
// a server whose process died.
func (s *Server) watch() {}
