// Package slashtest helps tests of the slash pipeline and of its hosts fake a source.
package slashtest

// Listeners is a fake source's lexicon subscriptions: SubscribeLexicon adds to it, and a
// test calls Notify to say the lexicon changed.
type Listeners struct {
	m    map[int]func()
	next int
}

// Add subscribes changed and returns what cancels it.
func (l *Listeners) Add(changed func()) (cancel func()) {
	if l.m == nil {
		l.m = map[int]func(){}
	}
	id := l.next
	l.next++
	l.m[id] = changed
	return func() { delete(l.m, id) }
}

// Notify calls every subscriber.
func (l *Listeners) Notify() {
	for _, f := range l.m {
		f()
	}
}

// Len is how many subscriptions are open.
func (l *Listeners) Len() int { return len(l.m) }
