package notify_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/hkdf"

	"parley/internal/testkit"
	"parley/protocol"
	"parley/runtime/eventlog"
	"parley/runtime/notify"
)

// device is a browser's side of Web Push: its ECDH key pair and auth secret (RFC 8291).
type device struct {
	key  *ecdh.PrivateKey
	auth []byte
}

func newDevice(t *testing.T) device {
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	require.NoError(t, err)
	auth := make([]byte, 16)
	_, _ = rand.Read(auth)
	return device{key: key, auth: auth}
}

func (d device) subscription(endpoint string) protocol.PushSubscription {
	var s protocol.PushSubscription
	s.Endpoint = endpoint
	s.Keys.P256dh = base64.RawURLEncoding.EncodeToString(d.key.PublicKey().Bytes())
	s.Keys.Auth = base64.RawURLEncoding.EncodeToString(d.auth)
	return s
}

// decrypt opens an aes128gcm body (RFC 8188) encrypted for d (RFC 8291), as a browser does.
func (d device) decrypt(body []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("body shorter than its header")
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if len(body) < 21+idlen {
		return nil, errors.New("body shorter than its key id")
	}
	asPublic, ciphertext := body[21:21+idlen], body[21+idlen:]
	if uint32(len(ciphertext)) > rs {
		return nil, errors.New("more than one record")
	}
	peer, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, err
	}
	secret, err := d.key.ECDH(peer)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), d.key.PublicKey().Bytes()...), asPublic...)
	ikm := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, secret, d.auth, info), ikm); err != nil {
		return nil, err
	}
	cek, nonce := make([]byte, 16), make([]byte, 12)
	if _, err := io.ReadFull(hkdf.New(sha256.New, ikm, salt, []byte("Content-Encoding: aes128gcm\x00")), cek); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(hkdf.New(sha256.New, ikm, salt, []byte("Content-Encoding: nonce\x00")), nonce); err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		return nil, err
	}
	// The last record ends with the delimiter 2, then zero padding.
	end := bytes.LastIndexFunc(plain, func(r rune) bool { return r != 0 })
	if end < 0 || plain[end] != 2 {
		return nil, errors.New("no last-record delimiter")
	}
	return plain[:end], nil
}

// pushService is a push endpoint inside the test: it checks the VAPID signature, decrypts
// each message for its device, and answers with the status set for it.
type pushService struct {
	t       *testing.T
	srv     *httptest.Server
	vapid   string // the server's public key, URL-safe base64
	mu      sync.Mutex
	devices map[string]device
	status  map[string]int
	got     chan received
}

type received struct {
	device string
	n      protocol.Notification
	ttl    string
	topic  string
}

func newPushService(t *testing.T) *pushService {
	p := &pushService{t: t, devices: map[string]device{}, status: map[string]int{}, got: make(chan received, 16)}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *pushService) add(t *testing.T, name string, status int) protocol.PushSubscription {
	d := newDevice(t)
	p.mu.Lock()
	p.devices[name], p.status[name] = d, status
	p.mu.Unlock()
	return d.subscription(p.srv.URL + "/push/" + name)
}

func (p *pushService) serve(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/push/")
	p.mu.Lock()
	d, ok := p.devices[name]
	status := p.status[name]
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if err := p.checkVAPID(r.Header.Get("Authorization")); err != nil {
		p.t.Errorf("VAPID: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	if r.Header.Get("Content-Encoding") != "aes128gcm" {
		p.t.Errorf("Content-Encoding %q", r.Header.Get("Content-Encoding"))
	}
	body, _ := io.ReadAll(r.Body)
	if status >= 300 {
		w.WriteHeader(status)
		return
	}
	plain, err := d.decrypt(body)
	if err != nil {
		p.t.Errorf("decrypt: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var n protocol.Notification
	if err := json.Unmarshal(plain, &n); err != nil {
		p.t.Errorf("payload %q: %v", plain, err)
	}
	p.got <- received{device: name, n: n, ttl: r.Header.Get("TTL"), topic: r.Header.Get("Topic")}
	w.WriteHeader(http.StatusCreated)
}

// checkVAPID verifies "vapid t=<JWT>, k=<key>" (RFC 8292): the key is the server's and the
// ES256 signature and the audience hold.
func (p *pushService) checkVAPID(h string) error {
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return errors.New("no vapid authorization: " + h)
	}
	var token, key string
	for _, part := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			token = v
		case "k":
			key = v
		}
	}
	if key != p.vapid {
		return errors.New("k is not the server's public key")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("t is not a JWT")
	}
	raw, err := base64.RawURLEncoding.DecodeString(key)
	if err != nil {
		return err
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), raw)
	if err != nil {
		return err
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return errors.New("bad signature encoding")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return errors.New("the signature does not verify")
	}
	claims, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return err
	}
	var c struct {
		Aud string `json:"aud"`
		Sub string `json:"sub"`
	}
	if err := json.Unmarshal(claims, &c); err != nil {
		return err
	}
	if c.Aud != p.srv.URL || c.Sub == "" {
		return errors.New("aud " + c.Aud + " sub " + c.Sub)
	}
	return nil
}

func startWithPush(t *testing.T, log *eventlog.Log, svc *pushService) (*instance, *notify.Push) {
	t.Helper()
	keys, err := notify.LoadVAPID(t.TempDir())
	require.NoError(t, err)
	svc.vapid = keys.PublicKey
	push, err := notify.OpenPush(t.Context(), log.JetStream(), keys, notify.PushOptions{Client: svc.srv.Client()})
	require.NoError(t, err)
	in := &instance{outcomes: make(chan outcome, 16)}
	n, err := notify.Start(t.Context(), log, notify.Options{
		Grace:   time.Second,
		Push:    push,
		Outcome: func(nt protocol.Notification, sent bool) { in.outcomes <- outcome{nt.Decision, sent} },
	})
	require.NoError(t, err)
	t.Cleanup(n.Close)
	in.n = n
	return in, push
}

func (p *pushService) next(t *testing.T) received {
	t.Helper()
	return testkit.RecvWithin(t, p.got, within, "nothing pushed")
}

// withPhone starts a notifier with push on a fresh log, with one device, "phone", subscribed
// at svc.
func withPhone(t *testing.T) (*eventlog.Log, *pushService, *instance) {
	t.Helper()
	log := openLog(t)
	svc := newPushService(t)
	a, push := startWithPush(t, log, svc)
	require.NoError(t, push.Subscribe(t.Context(), "phone", svc.add(t, "phone", http.StatusCreated)))
	return log, svc, a
}

// TestPushDelivered: an unclaimed decision reaches a subscribed device's push service,
// signed with the server's VAPID key and encrypted so that only the device reads it.
func TestPushDelivered(t *testing.T) {
	log, svc, a := withPhone(t)

	ask(t, log, "s1", "d1", "Run a command?")
	got := svc.next(t)
	assert.Equal(t, "phone", got.device)
	assert.Equal(t, protocol.Notification{Session: "s1", Decision: "d1", Title: "Approval needed: Run a command?",
		Body: "rm -rf build", Tag: "parley-s1", URL: "/s/s1"}, got.n)
	assert.NotEmpty(t, got.ttl)
	assert.Equal(t, outcome{"d1", true}, a.next(t))
}

// TestPushInTheDevicesLocale: a device subscribed from a Chinese page gets its
// notification in Chinese, one from an English page in English.
func TestPushInTheDevicesLocale(t *testing.T) {
	log := openLog(t)
	svc := newPushService(t)
	_, push := startWithPush(t, log, svc)
	zh := svc.add(t, "tablet", http.StatusCreated)
	zh.Locale = "zh-Hans"
	require.NoError(t, push.Subscribe(t.Context(), "tablet", zh))
	require.NoError(t, push.Subscribe(t.Context(), "phone", svc.add(t, "phone", http.StatusCreated)))

	ask(t, log, "s1", "d1", "Run a command?")
	titles := map[string]string{}
	for range 2 {
		got := svc.next(t)
		titles[got.device] = got.n.Title
	}
	assert.Equal(t, map[string]string{"tablet": "需要批准：Run a command?", "phone": "Approval needed: Run a command?"}, titles)
}

// TestPushWithdrawnWhenAnsweredElsewhere: once a notified decision is answered, the device
// gets a second push that takes it back: the same tag and decision, withdrawn, no title, and
// no Topic (it must not replace a newer ask of the thread still waiting at the push service).
func TestPushWithdrawnWhenAnsweredElsewhere(t *testing.T) {
	log, svc, a := withPhone(t)

	ask(t, log, "s1", "d1", "Run a command?")
	first := svc.next(t)
	assert.Equal(t, "d1", first.n.Decision)
	assert.Equal(t, "parley-s1", first.topic)
	assert.Equal(t, outcome{"d1", true}, a.next(t))
	reply(t, log, "s1", "d1")
	got := svc.next(t)
	assert.Equal(t, protocol.Notification{Session: "s1", Decision: "d1", Tag: "parley-s1", URL: "/s/s1", Withdrawn: true}, got.n)
	assert.Empty(t, got.topic)
}

// TestPushClaimedIsNotSent: the grace window and the seen claim hold for pushes too.
func TestPushClaimedIsNotSent(t *testing.T) {
	log, svc, a := withPhone(t)

	ask(t, log, "s1", "d1", "Seen on a laptop?")
	require.NoError(t, a.n.Seen(t.Context(), protocol.SeenClaim{Session: "s1", Decision: "d1"}))
	assert.Equal(t, outcome{"d1", false}, a.next(t))
	ask(t, log, "s1", "d2", "Not seen?")
	assert.Equal(t, "d2", svc.next(t).n.Decision, "the first push is the unclaimed decision's")
}

// TestExpiredSubscriptionIsRemoved: a push service that answers 410 (or 404) for a device
// has forgotten it: the subscription goes, the others stay.
func TestExpiredSubscriptionIsRemoved(t *testing.T) {
	log := openLog(t)
	svc := newPushService(t)
	_, push := startWithPush(t, log, svc)
	require.NoError(t, push.Subscribe(t.Context(), "phone", svc.add(t, "phone", http.StatusCreated)))
	require.NoError(t, push.Subscribe(t.Context(), "old", svc.add(t, "old", http.StatusGone)))
	require.NoError(t, push.Subscribe(t.Context(), "gone", svc.add(t, "gone", http.StatusNotFound)))

	ask(t, log, "s1", "d1", "Anyone?")
	assert.Equal(t, "phone", svc.next(t).device)
	assert.Eventually(t, func() bool {
		devices, err := push.Devices(t.Context())
		return err == nil && len(devices) == 1 && devices[0].ID == "phone"
	}, 20*time.Second, 50*time.Millisecond, "the expired subscriptions are removed")
}

// TestSubscriptionsAreChecked: only https endpoints with both keys, under a device id.
func TestSubscriptionsAreChecked(t *testing.T) {
	log := openLog(t)
	svc := newPushService(t)
	_, push := startWithPush(t, log, svc)
	good := svc.add(t, "phone", http.StatusCreated)
	plain := good
	plain.Endpoint = "http://127.0.0.1:1/push"
	assert.ErrorIs(t, push.Subscribe(t.Context(), "phone", plain), notify.ErrBadSubscription)
	noKeys := good
	noKeys.Keys.Auth = ""
	assert.ErrorIs(t, push.Subscribe(t.Context(), "phone", noKeys), notify.ErrBadSubscription)
	assert.ErrorIs(t, push.Subscribe(t.Context(), "a.b", good), notify.ErrBadSubscription)
	require.NoError(t, push.Subscribe(t.Context(), "phone", good))
	require.NoError(t, push.Subscribe(t.Context(), "phone", good), "a device subscribes again")
	devices, err := push.Devices(t.Context())
	require.NoError(t, err)
	assert.Len(t, devices, 1)
	require.NoError(t, push.Unsubscribe(t.Context(), "phone"))
	require.NoError(t, push.Unsubscribe(t.Context(), "phone"), "twice is no error")
	devices, err = push.Devices(t.Context())
	require.NoError(t, err)
	assert.Empty(t, devices)
}

// TestVAPIDKeysAreKept: made once, stored private to the user, the same after a restart.
func TestVAPIDKeysAreKept(t *testing.T) {
	dir := t.TempDir()
	first, err := notify.LoadVAPID(dir)
	require.NoError(t, err)
	again, err := notify.LoadVAPID(dir)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	st, err := os.Stat(filepath.Join(dir, "vapid.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vapid.json"), []byte("{"), 0o600))
	_, err = notify.LoadVAPID(dir)
	assert.ErrorContains(t, err, "damaged")
}
