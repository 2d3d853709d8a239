package device

// The phone helper (package adb runs it) as the operator controls it: the
// policy's phone_helper applied to each device (its counters are package
// adbmetrics's; the console reads its state from adb itself).

// applyHelperPolicy turns the helper on or off on the known devices (all
// when keys is empty) as the policy in force says (phone_helper).
func (s *Service) applyHelperPolicy(keys ...string) {
	if s.cfg.Policy == nil {
		return
	}
	if len(keys) == 0 {
		s.mu.RLock()
		for k := range s.presence {
			keys = append(keys, k)
		}
		s.mu.RUnlock()
	}
	for _, key := range keys {
		s.mu.RLock()
		dev := s.deviceLocked(key)
		s.mu.RUnlock()
		if d, err := s.cfg.ADB.Device(key); err == nil {
			d.SetHelper(s.cfg.Policy.For(dev).HelperOn())
		}
	}
}
