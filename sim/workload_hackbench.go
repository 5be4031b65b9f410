package sim

import (
	"fmt"
	"time"
)

// HackbenchWorkload models hackbench: Groups groups of Fds senders and Fds
// receivers. Each receiver owns one channel (its pipe, or its socket);
// every sender of a group writes Loops messages to every receiver of its
// group, in the order hackbench does (for each loop, for each receiver).
// Each receiver reads Fds·Loops messages and exits; the workload is done
// when every task has exited, and its run time (the "Time:" hackbench
// prints) is the time from creation to the last exit.
//
// A message is one write of DataSize bytes by a sender to a receiver's
// channel, consumed by exactly one read: a group moves Fds·Fds·Loops
// messages, the workload Groups·Fds·Fds·Loops.
//
// Costs: a sender spends WriteCost of CPU time before each write (the
// write syscall), a receiver ReadCost after each read. Both are kernel
// time (Sys phases; KERNEL-SPEC-PREEMPT §7.1: hackbench runs mostly in
// the kernel), which schedules as Run under the full preemption model;
// UserCost, user-mode time after each call, defaults to 0. A channel holds
// Capacity messages; by default a pipe holds 64 KiB (16 pages, small writes
// merge into pages), i.e. 65536/DataSize messages, and a socket its send
// buffer's 212992 bytes at DataSize + 768 bytes of buffer accounting per
// message (an approximation of AF_UNIX skb truesize). Pipe and socket
// wakeups are synchronous (WF_SYNC). Process and thread mode schedule the
// same in this model (no address-space switch cost is modelled); Threads
// only labels the run.
//
// Tasks are created in hackbench's order: per group, the receivers, then
// the senders.
type HackbenchWorkload struct {
	// Label is the workload's name in reports (default "hackbench").
	Label string
	// Groups is hackbench -g (default 10).
	Groups int
	// Fds is hackbench -f (default 20).
	Fds int
	// Loops is hackbench -l (default 100).
	Loops int
	// Pipe is hackbench -p: pipes instead of sockets.
	Pipe bool
	// Threads is hackbench -T (threads) instead of -P (processes).
	Threads bool
	// DataSize is hackbench -s, bytes per message (default 100).
	DataSize int
	// WriteCost and ReadCost are the CPU time of one write and one read
	// (default 2 µs each), in kernel mode.
	WriteCost, ReadCost time.Duration
	// UserCost is user-mode CPU time after each write and each read
	// (default 0: none; KERNEL-SPEC-PREEMPT §7.1 guesses 0.2 µs).
	UserCost time.Duration
	// Capacity overrides the channel capacity in messages.
	Capacity int
	// Options are the tasks' scheduling attributes.
	Options TaskOptions
}

// Hackbench returns a hackbench of groups groups of fds senders and fds
// receivers exchanging loops messages per sender-receiver pair, over pipes
// (pipe) or sockets, in thread or process mode.
func Hackbench(groups, fds, loops int, pipe, threads bool, opt TaskOptions) *HackbenchWorkload {
	return &HackbenchWorkload{Groups: groups, Fds: fds, Loops: loops, Pipe: pipe, Threads: threads, Options: opt}
}

// Name implements Workload.
func (w *HackbenchWorkload) Name() string { return orDefault(w.Label, "hackbench") }

// Kind implements Workload.
func (w *HackbenchWorkload) Kind() string { return "hackbench" }

// Messages returns the number of messages the workload moves.
func (w *HackbenchWorkload) Messages() int {
	g, f, l := orDefault(w.Groups, 10), orDefault(w.Fds, 20), orDefault(w.Loops, 100)
	return g * f * f * l
}

// ChannelCapacity returns the capacity of each receiver's channel.
func (w *HackbenchWorkload) ChannelCapacity() int {
	if w.Capacity > 0 {
		return w.Capacity
	}
	size := orDefault(w.DataSize, 100)
	if w.Pipe {
		return max(1, 65536/size)
	}
	return max(1, 212992/(size+768))
}

// Tasks implements Workload.
func (w *HackbenchWorkload) Tasks() ([]TaskSpec, error) {
	groups, fds, loops := orDefault(w.Groups, 10), orDefault(w.Fds, 20), orDefault(w.Loops, 100)
	wc, rc := orDefault(w.WriteCost, 2*time.Microsecond), orDefault(w.ReadCost, 2*time.Microsecond)
	if err := checkCount("hackbench groups", groups, maxTasks); err != nil {
		return nil, err
	}
	if err := checkCount("hackbench fds", fds, 1024); err != nil {
		return nil, err
	}
	if err := checkCount("hackbench loops", loops, 1<<40); err != nil {
		return nil, err
	}
	if groups*fds*2 > maxTasks {
		return nil, fmt.Errorf("hackbench: %d tasks is too many", groups*fds*2)
	}
	if w.DataSize < 0 || w.Capacity < 0 {
		return nil, fmt.Errorf("hackbench: negative data size or capacity")
	}
	if err := checkDur("hackbench costs", min(wc, rc, w.UserCost)); err != nil {
		return nil, err
	}
	capacity := w.ChannelCapacity()
	mode := "process"
	if w.Threads {
		mode = "thread"
	}
	var out []TaskSpec
	for g := range groups {
		chans := make([]*Channel, fds)
		for r := range fds {
			chans[r] = NewChannel(fmt.Sprintf("%s-g%d-r%d", w.Name(), g, r), capacity, true)
			prog := Loop(fds*loops, Recv(chans[r], 1), Sys(rc))
			if w.UserCost > 0 {
				prog = Loop(fds*loops, Recv(chans[r], 1), Sys(rc), Run(w.UserCost))
			}
			out = append(out, w.Options.spec(fmt.Sprintf("%s-%s-g%d-r%d", w.Name(), mode, g, r), prog))
		}
		body := make([]Phase, 0, 3*fds)
		for r := range fds {
			body = append(body, Sys(wc), Send(chans[r], 1))
			if w.UserCost > 0 {
				body = append(body, Run(w.UserCost))
			}
		}
		for snd := range fds {
			out = append(out, w.Options.spec(fmt.Sprintf("%s-%s-g%d-s%d", w.Name(), mode, g, snd), Loop(loops, body...)))
		}
	}
	return out, nil
}
