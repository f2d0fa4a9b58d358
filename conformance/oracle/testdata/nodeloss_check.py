import json, math, sys, collections
# usage: check.py trace.jsonl MINOR (e.g. 31): up to 1.33 the node is queued for its NoExecute taint one
# monitor pass after it went Unknown (processTaintBaseEviction reads the observed Ready condition).
minor = int(sys.argv[2]) if len(sys.argv) > 2 else 37
# Checks the contract's timing rules (nodeloss-spec.md) against the harness's upstream trace.
rows = {}
for l in open(sys.argv[1]):
    d = json.loads(l); rows[(d['scenario'], d['node'])] = d   # replays overwrite
by_sc = collections.defaultdict(list)
for d in rows.values(): by_sc[d['scenario']].append(d)
def first_tick_ge(x, P):
    return math.ceil(x / P - 1e-9) * P
def first_tick_gt(x, P):
    t = math.floor(x / P + 1e-9) * P + P
    return t
bad = collections.Counter(); ex = {}
for sc, ds in sorted(by_sc.items()):
    P = ds[0]['period']; G = ds[0]['grace']; nl = ds[0]['nodeLoss'] or {}
    run = ds[0]['runFor']
    dele = nl.get('nodeDeletedAfterSeconds'); oos = nl.get('outOfServiceAfterSeconds')
    # expected NotReady per node
    exp = {}
    for d in ds:
        T = d['times']['lost']; R = 10 * math.floor(T / 10 + 1e-9)
        probe = first_tick_ge(R, P)
        nr = first_tick_gt(probe + G, P)
        if dele is not None and T + dele <= nr: nr = None   # deleted before: never NotReady
        exp[d['node']] = {'notReady': nr}
    # taints in Unknown order with the rate limit (first at once, then 10 s apart, on the monitor grid)
    last = None
    lost_at = {d['node']: d['times']['lost'] for d in ds}
    # Unknown at the same pass: in the order the nodes were lost, then created (the harness's order)
    for node in sorted(exp, key=lambda n: (exp[n]['notReady'] if exp[n]['notReady'] is not None else 1e18, lost_at[n], int(n[5:]))):
        nr = exp[node]['notReady']
        if nr is None or nr > run: exp[node]["tainted"] = None; continue
        q = nr + (P if minor <= 33 else 0)
        # the tainting pass runs every 100 ms while a node waits for the token
        t = q if last is None else max(q, round(first_tick_ge(last + 10, 0.1), 1))
        T = [d for d in ds if d['node'] == node][0]['times']['lost']
        if dele is not None and t >= T + dele:
            exp[node]['tainted'] = None; last = t; continue   # deleted before its turn: its turn still takes the token
        exp[node]['tainted'] = t; last = t
    for d in ds:
        e = exp[d['node']]; T = d['times']['lost']
        tols = d['tolerations'] or []
        def matches(tol, key):
            return (tol.get('key', '') in ('', key)) and tol.get('effect', '') in ('', 'NoExecute') and (tol.get('operator') == 'Exists' or tol.get('key') == key)
        ev = None
        if e['tainted'] is not None:
            m = [t for t in tols if matches(t, 'node.kubernetes.io/unreachable')]
            if not m: ev = e['tainted']
            else:
                secs = [t.get('tolerationSeconds') for t in m if t.get('tolerationSeconds') is not None]
                if any(s <= 0 for s in secs): ev = e['tainted']
                elif secs: ev = e['tainted'] + min(secs)
        if oos is not None:
            o = T + oos
            if not any(matches(t, 'node.kubernetes.io/out-of-service') for t in tols):
                ev = o if ev is None else min(ev, o)
        e['evicted'] = ev
        fail = None
        if dele is not None:
            g1 = first_tick_ge(T + dele, 20); fail = g1 + 40
        elif oos is not None and ev is not None and e['notReady'] is not None:
            fail = first_tick_ge(max(ev, T + oos, e['notReady']), 20)
        e['failed'] = fail
        got = d['times']
        # compare only what happened before the run ended (the Job may have finished: the harness stops)
        for k in ('notReady', 'tainted', 'evicted', 'failed'):
            g = got.get(k); w = e.get(k)
            if w is not None and w > run: w = None
            if g != w:
                # the Job may have ended before w (the harness stops): missing-but-expected later is not a finding
                if g is None and w is not None and w >= max(got.values()):
                    bad['(after the last event: run ended?) ' + k] += 1
                    continue
                bad[k] += 1
                ex.setdefault(k, []).append((sc, d['node'], 'T=%g' % T, 'got', g, 'want', w, 'P', P, 'G', G, nl, [ (t.get('key'), t.get('tolerationSeconds')) for t in tols]))
print('lost nodes', len(rows))
for k, v in bad.items(): print(k, v)
for k, v in ex.items():
    for x in v[:6]: print(k, x)
