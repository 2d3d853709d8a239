package connector

// LeasePending exposes the lease state of a connector_id to the external tests.
func (s *Server) LeasePending(id string) (known, pending bool) { return s.state.leasePending(id) }
