//go:build !linux

package main

import "errors"

func renice(n int) error {
	if n == 0 {
		return nil
	}
	return errors.New("renice: supported on Linux only")
}

func niceness() (int, error) { return 0, nil }

func reniceGroup(n int) (func() error, error) {
	if n == 0 {
		return func() error { return nil }, nil
	}
	return nil, errors.New("renice: supported on Linux only")
}

const schedOther, schedRR = 0, 2

func setPolicy(policy, prio int) error {
	if policy == schedOther {
		return nil
	}
	return errors.New("real-time scheduling: supported on Linux only")
}
