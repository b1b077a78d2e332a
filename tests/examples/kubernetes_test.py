#!/usr/bin/python3
"""examples/kubernetes: the DaemonSet manifest and the Dockerfile, held to
the real biosnoop (docs/kubernetes.md).

    kubernetes_test.py SOURCE_DIR BUILD_DIR

What a cluster would find out too late, checked here:
  - the manifest is valid Kubernetes (every field known to the API's own
    models, Debian's python3-kubernetes, and of the right type);
  - its security context: not privileged, no escalation, read-only root,
    every capability dropped but those added;
  - the capabilities added are exactly those biosnoop needs: with them it
    starts with the manifest's own arguments and exits 0; without CAP_BPF
    or CAP_PERFMON it exits 77; without CAP_SYSLOG the address it reads
    from /proc/kallsyms to follow direct I/O reads as 0 (where the kernel
    hides it: kptr_restrict, perf_event_paranoid > 1);
  - every host path exists here (the log directory is created), mounted
    at the same path (biosnoop's paths are fixed), read-only but the log
    directory, which holds the -o file;
  - from inside a cgroup namespace of its own (what Kubernetes gives an
    unprivileged container on a cgroup v2 node), with the manifest's
    capabilities, biosnoop names a pod's cgroup, container and pod uid;
  - the Dockerfile's runtime stage installs the Debian packages of every
    library biosnoop and bioreport link, and copies files cmake --install
    puts there;
  - the metrics endpoint: the port biosnoop listens on is the container
    port named `metrics`, the scrape annotations' and podmonitor.yaml's,
    whose selector picks the DaemonSet's pods; and a scrape of biosnoop
    run with the manifest's capabilities gets its metrics, process
    metrics included, in the text and the protobuf format.

The parts that run biosnoop need root; without it they are skipped, and
under CI=true a skip is a failure.
"""

import json
import os
import re
import socket
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
import uuid

import yaml

SOURCE = BUILD = None
MANIFEST = DOCKERFILE = PODMONITOR = None

# Kubernetes' capability names -> setpriv's.
ALL_CAPS = None


def load_manifest():
    with open(MANIFEST) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def daemonset():
    for d in load_manifest():
        if d.get("kind") == "DaemonSet":
            return d
    raise AssertionError("no DaemonSet in " + MANIFEST)


def container():
    cs = daemonset()["spec"]["template"]["spec"]["containers"]
    assert len(cs) == 1, "one container expected, found %d" % len(cs)
    return cs[0]


def added_caps():
    return list(container()["securityContext"]["capabilities"]["add"])


def output_path(args):
    for i, a in enumerate(args):
        if a in ("-o", "--output"):
            return args[i + 1]
        if a.startswith("--output="):
            return a.split("=", 1)[1]
    raise AssertionError("the container's command has no -o FILE: %s" % args)


def biosnoop():
    return os.path.join(BUILD, "cpp", "biosnoop")


def need_root(test):
    if os.geteuid() == 0:
        return
    if os.environ.get("CI") == "true":
        test.fail("needs root, and under CI=true a skip is a failure")
    test.skipTest("needs root")


def setpriv(caps, extra=()):
    """setpriv arguments that leave uid 0 with exactly `caps` (Kubernetes
    names) and the container's group, under no_new_privs, as the
    manifest's securityContext does."""
    sc = container()["securityContext"]
    spec = ",".join(["-all"] + ["+" + c.lower() for c in caps])
    argv = ["setpriv", "--bounding-set", spec, "--inh-caps", "-all"]
    if "runAsGroup" in sc:
        argv += ["--regid", str(sc["runAsGroup"]), "--clear-groups"]
    if sc.get("allowPrivilegeEscalation") is False:
        argv.append("--no-new-privs")
    return argv + list(extra) + ["--"]


def metrics_listen(args):
    """The value of --metrics-listen in the container's arguments."""
    for i, a in enumerate(args):
        if a == "--metrics-listen":
            return args[i + 1]
        if a.startswith("--metrics-listen="):
            return a.split("=", 1)[1]
    raise AssertionError("the container's command has no --metrics-listen")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expand_env(arg):
    """$(NAME) as the kubelet expands it from the container's env: the
    node's address (fieldRef status.hostIP) is this machine's loopback
    here."""
    env = {}
    for e in container().get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") in (
                "status.hostIP", "status.podIP"):
            env[e["name"]] = "127.0.0.1"
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                  lambda m: env.get(m.group(1), m.group(0)), arg)


def manifest_command(out_file, metrics_port=None):
    """The container's command with its output in `out_file`, its $(VAR)s
    expanded, and the metrics on `metrics_port` (a free one by default:
    the manifest's may be taken on this machine)."""
    c = container()
    argv = [expand_env(a) for a in
            list(c.get("command", [])) + list(c.get("args", []))]
    path = output_path(argv)
    argv = [out_file if a == path else a for a in argv]
    listen = metrics_listen(argv)
    port = metrics_port if metrics_port is not None else free_port()
    argv = [re.sub(r":\d+$", ":%d" % port, a) if a == listen else a
            for a in argv]
    argv[0] = biosnoop()  # the image's /usr/local/sbin/biosnoop
    return argv


def v2_mount():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            head, _, tail = line.partition(" - ")
            fields = head.split()
            if tail.split()[0] == "cgroup2" and fields[3] == "/":
                return fields[4].replace("\\040", " ")
    return None


class Schema(unittest.TestCase):
    """Every field a field of the Kubernetes API (python3-kubernetes'
    models of it), of the right type; required ones present."""

    def check(self, value, type_name, path, errors):
        from kubernetes import client

        if type_name.startswith("list["):
            if not isinstance(value, list):
                errors.append("%s: a list expected" % path)
                return
            for i, v in enumerate(value):
                self.check(v, type_name[5:-1], "%s[%d]" % (path, i), errors)
        elif type_name.startswith("dict("):
            if not isinstance(value, dict):
                errors.append("%s: a map expected" % path)
                return
            inner = type_name[type_name.index(",") + 1:-1].strip()
            for k, v in value.items():
                self.check(v, inner, "%s.%s" % (path, k), errors)
        elif type_name == "str":
            if not isinstance(value, str):
                errors.append("%s: a string expected, got %r" % (path, value))
        elif type_name == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                errors.append("%s: an integer expected, got %r" % (path, value))
        elif type_name == "bool":
            if not isinstance(value, bool):
                errors.append("%s: true or false expected, got %r" % (path, value))
        elif type_name in ("object", "datetime"):
            pass
        else:
            model = getattr(client, type_name)
            if not isinstance(value, dict):
                errors.append("%s: an object (%s) expected" % (path, type_name))
                return
            by_json = {v: k for k, v in model.attribute_map.items()}
            for key, v in value.items():
                if key not in by_json:
                    errors.append("%s.%s: no such field in %s" % (path, key, type_name))
                    continue
                self.check(v, model.openapi_types[by_json[key]],
                           "%s.%s" % (path, key), errors)

    def test_manifest_is_valid_kubernetes(self):
        try:
            from kubernetes import client
        except ImportError:
            if os.environ.get("CI") == "true":
                self.fail("python3-kubernetes is missing (tools/install-deps)")
            self.skipTest("python3-kubernetes is missing (tools/install-deps)")
        kinds = {"Namespace": ("v1", "V1Namespace"),
                 "ServiceAccount": ("v1", "V1ServiceAccount"),
                 "DaemonSet": ("apps/v1", "V1DaemonSet")}
        docs = load_manifest()
        self.assertEqual(sorted(d.get("kind") for d in docs), sorted(kinds))
        api = client.ApiClient()
        for d in docs:
            version, model = kinds[d["kind"]]
            self.assertEqual(d.get("apiVersion"), version, d["kind"])
            errors = []
            self.check(d, model, d["kind"], errors)
            self.assertEqual(errors, [])
            # The models' own checks: required fields, enumerations.
            try:
                api._ApiClient__deserialize(d, model)
            except ValueError as e:
                self.fail("%s: %s" % (d["kind"], e))
        ns = {d["kind"]: d["metadata"].get("namespace") for d in docs}
        name = [d for d in docs if d["kind"] == "Namespace"][0]["metadata"]["name"]
        self.assertEqual(ns["DaemonSet"], name)
        self.assertEqual(ns["ServiceAccount"], name)
        spec = daemonset()["spec"]
        self.assertEqual(spec["selector"]["matchLabels"],
                         {k: spec["template"]["metadata"]["labels"][k]
                          for k in spec["selector"]["matchLabels"]})


class Security(unittest.TestCase):

    def test_least_privilege_context(self):
        pod = daemonset()["spec"]["template"]["spec"]
        sc = container()["securityContext"]
        self.assertIs(sc.get("privileged", False), False,
                      "privileged: capabilities are enough")
        self.assertIs(sc.get("allowPrivilegeEscalation"), False)
        self.assertIs(sc.get("readOnlyRootFilesystem"), True)
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        # Kubernetes gives added capabilities to uid 0 only.
        self.assertEqual(sc.get("runAsUser"), 0)
        self.assertNotIn("SYS_ADMIN", sc["capabilities"]["add"])
        self.assertTrue(pod.get("hostPID"), "hostPID: /proc/<tid>/cgroup")
        self.assertFalse(pod.get("automountServiceAccountToken", True))
        self.assertIn({"operator": "Exists"}, pod.get("tolerations", []))

    def test_capabilities_are_exactly_those_needed(self):
        need_root(self)
        caps = added_caps()
        with tempfile.TemporaryDirectory() as tmp:
            def run(with_caps, name):
                out = os.path.join(tmp, name + ".jsonl")
                argv = setpriv(with_caps) + manifest_command(out) + [
                    "--duration", "0.3"]
                r = subprocess.run(argv, capture_output=True, text=True,
                                   timeout=120)
                return r, out

            r, out = run(caps, "all")
            self.assertEqual(r.returncode, 0,
                             "with %s: %s" % (caps, r.stderr))
            with open(out) as f:
                records = [json.loads(line) for line in f]
            self.assertEqual(records[0]["type"], "header")
            self.assertTrue(records[-1].get("final"), records[-1])
            for cap in ("BPF", "PERFMON"):
                self.assertIn(cap, caps)
                r, out = run([c for c in caps if c != cap], "no" + cap)
                self.assertEqual(r.returncode, 77,
                                 "without %s: %s" % (cap, r.stderr))
            # Any other capability must be needed too: biosnoop must fail
            # without it.
            for cap in caps:
                if cap in ("BPF", "PERFMON", "SYSLOG"):
                    continue
                r, out = run([c for c in caps if c != cap], "no" + cap)
                self.assertNotEqual(r.returncode, 0,
                                    "%s is not needed: biosnoop runs "
                                    "without it" % cap)
        # CAP_SYSLOG: biosnoop reads iomap_dio_bio_end_io's address from
        # /proc/kallsyms (cpp/kernel/attribution_config.cc).
        self.assertIn("SYSLOG", caps)

        def address(with_caps):
            r = subprocess.run(
                setpriv(with_caps) + ["grep", "-m1", " iomap_dio_bio_end_io$",
                                      "/proc/kallsyms"],
                capture_output=True, text=True, timeout=60)
            return int(r.stdout.split()[0], 16) if r.stdout else None

        with_syslog = address(caps)
        if with_syslog is None:
            self.skipTest("no iomap_dio_bio_end_io in this kernel")
        self.assertNotEqual(with_syslog, 0, "with CAP_SYSLOG")
        with open("/proc/sys/kernel/kptr_restrict") as f:
            kptr = int(f.read())
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
        without = address([c for c in caps if c != "SYSLOG"])
        if kptr >= 1 or paranoid > 1:
            self.assertEqual(without, 0, "without CAP_SYSLOG the kernel "
                             "hides the address (kptr_restrict %d, "
                             "perf_event_paranoid %d)" % (kptr, paranoid))
        # (kptr_restrict 0 and perf_event_paranoid <= 1 show it to anyone.)


class HostPaths(unittest.TestCase):

    def test_mounts(self):
        pod = daemonset()["spec"]["template"]["spec"]
        c = container()
        volumes = {v["name"]: v for v in pod["volumes"]}
        out_dir = os.path.dirname(output_path(c.get("command", []) +
                                              c.get("args", [])))
        writable = []
        for m in c["volumeMounts"]:
            v = volumes[m["name"]]
            self.assertIn("hostPath", v, m["name"])
            host = v["hostPath"]["path"]
            kind = v["hostPath"].get("type", "")
            # biosnoop's paths are the host's own (/sys/kernel/btf/vmlinux,
            # the cgroup v2 mount found in mountinfo under /sys/fs/cgroup).
            self.assertEqual(m["mountPath"], host)
            if kind == "DirectoryOrCreate":
                pass  # the kubelet creates it
            else:
                self.assertEqual(kind, "Directory", m["name"])
                self.assertTrue(os.path.isdir(host),
                                "%s does not exist here" % host)
            if not m.get("readOnly", False):
                writable.append(m["mountPath"])
        self.assertEqual(writable, [out_dir],
                         "only the log directory is writable")
        # What biosnoop reads is under the read-only mounts.
        mounts = [m["mountPath"] for m in c["volumeMounts"]]
        self.assertIn("/sys/kernel/btf", mounts)
        self.assertTrue(os.path.exists("/sys/kernel/btf/vmlinux"))
        self.assertIn("/sys/fs/cgroup", mounts)
        v2 = v2_mount()
        if v2 is not None:
            self.assertTrue(v2 == "/sys/fs/cgroup" or
                            v2.startswith("/sys/fs/cgroup/"), v2)


class PodInEvents(unittest.TestCase):
    """biosnoop in a cgroup namespace of its own, as in an unprivileged
    container on a cgroup v2 node, with the manifest's capabilities and
    arguments: a direct read from a task in a kubepods cgroup names the
    pod and the container."""

    def test_pod_named_from_a_cgroup_namespace(self):
        need_root(self)
        v2 = v2_mount()
        if v2 is None:
            self.skipTest("no cgroup v2 hierarchy mounted")
        pod_uid = str(uuid.uuid4())
        ctr = uuid.uuid4().hex + uuid.uuid4().hex
        base = os.path.join(v2, "biosnoop-k8s-test-%s.slice" %
                            uuid.uuid4().hex[:8])
        # As the kubelet's systemd driver names them.
        ctr_cg = os.path.join(
            base, "kubepods.slice", "kubepods-besteffort.slice",
            "kubepods-besteffort-pod%s.slice" % pod_uid.replace("-", "_"),
            "cri-containerd-%s.scope" % ctr)
        self_cg = os.path.join(base, "biosnoop.scope")
        os.makedirs(ctr_cg)
        os.makedirs(self_cg)
        procs = []
        tmp = tempfile.mkdtemp(prefix="biosnoop-k8s-", dir="/var/tmp")
        try:
            out = os.path.join(tmp, "slow.jsonl")
            # Into a cgroup of its own, then a new cgroup namespace rooted
            # there, then exactly the manifest's capabilities.
            cmd = (["unshare", "--cgroup"] + setpriv(added_caps()) +
                   manifest_command(out) +
                   ["--min-us", "0", "--comm", "dd", "--duration", "60"])
            sh = "echo $$ > %s/cgroup.procs && exec %s" % (
                shlex.quote(self_cg), shlex.join(cmd))
            snoop = subprocess.Popen(["sh", "-c", sh], stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
            procs.append(snoop)
            self.wait_for(out, lambda r: r["type"] == "header", snoop,
                          "biosnoop's header")
            data = os.path.join(tmp, "data")
            with open(data, "wb") as f:
                f.write(os.urandom(1 << 20))
                f.flush()
                os.fsync(f.fileno())
            # A task of the "pod" reading it directly, again and again.
            reader = subprocess.Popen(
                ["sh", "-c", "echo $$ > %s/cgroup.procs && while :; do "
                 "dd if=%s of=/dev/null iflag=direct bs=4k count=16 "
                 "status=none; done" % (shlex.quote(ctr_cg), shlex.quote(data))],
                start_new_session=True)
            procs.append(reader)
            ev = self.wait_for(
                out, lambda r: r["type"] == "event" and
                r.get("pod_uid") == pod_uid, snoop,
                "an event of pod %s" % pod_uid)
            self.assertEqual(ev["container_id"], ctr)
            self.assertEqual(
                ev["cgroup"], "/" + os.path.relpath(ctr_cg, v2), ev)
            os.killpg(reader.pid, signal.SIGKILL)
            reader.wait()
            os.killpg(snoop.pid, signal.SIGTERM)
            _, err = snoop.communicate(timeout=30)
            self.assertEqual(snoop.returncode, 0, err)
        finally:
            for p in procs:
                if p.poll() is None:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            d = ctr_cg
            while d != base:
                self.rmdir_when_empty(d)
                d = os.path.dirname(d)
            self.rmdir_when_empty(self_cg)
            self.rmdir_when_empty(base)
            shutil.rmtree(tmp, ignore_errors=True)

    def wait_for(self, path, pred, proc, what, bound_s=30):
        deadline = time.monotonic() + bound_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.fail("biosnoop exited %d before %s: %s" %
                          (proc.returncode, what, proc.stderr.read()))
            if os.path.exists(path):
                with open(path) as f:
                    for line in f:
                        if line.endswith("\n"):
                            r = json.loads(line)
                            if pred(r):
                                return r
            time.sleep(0.05)  # polling the file, not waiting for an order
        self.fail("%s did not appear in %s within %d s" % (what, path, bound_s))

    @staticmethod
    def rmdir_when_empty(d):
        # A cgroup is removable once its killed tasks have gone.
        deadline = time.monotonic() + 10
        while os.path.isdir(d):
            try:
                os.rmdir(d)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)


class Metrics(unittest.TestCase):
    """The metrics endpoint as Prometheus finds it: one port, declared
    where each way of finding it looks, and served by biosnoop with the
    manifest's capabilities."""

    def port(self):
        """The port of --metrics-listen $(VAR):PORT, where VAR is the
        node's address (not every interface, nor the node's loopback,
        which Prometheus cannot reach)."""
        c = container()
        listen = metrics_listen(c.get("command", []) + c.get("args", []))
        m = re.fullmatch(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\):(\d+)", listen)
        self.assertIsNotNone(m, listen)
        env = {e["name"]: e for e in c.get("env", [])}
        self.assertEqual(
            env[m.group(1)]["valueFrom"]["fieldRef"]["fieldPath"],
            "status.hostIP")
        return int(m.group(2))

    def test_one_port_everywhere(self):
        port = self.port()
        ports = {p["name"]: p for p in container().get("ports", [])}
        self.assertEqual(ports["metrics"]["containerPort"], port)
        self.assertEqual(ports["metrics"].get("protocol", "TCP"), "TCP")
        notes = daemonset()["spec"]["template"]["metadata"]["annotations"]
        self.assertEqual(notes["prometheus.io/scrape"], "true")
        self.assertEqual(notes["prometheus.io/port"], str(port))
        self.assertEqual(notes["prometheus.io/path"], "/metrics")

    def test_podmonitor_picks_the_daemonsets_pods(self):
        with open(PODMONITOR) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        self.assertEqual(len(docs), 1)
        pm = docs[0]
        self.assertEqual(pm["apiVersion"], "monitoring.coreos.com/v1")
        self.assertEqual(pm["kind"], "PodMonitor")
        self.assertEqual(pm["metadata"]["namespace"],
                         daemonset()["metadata"]["namespace"])
        labels = daemonset()["spec"]["template"]["metadata"]["labels"]
        selector = pm["spec"]["selector"]["matchLabels"]
        self.assertTrue(selector)
        for k, v in selector.items():
            self.assertEqual(labels.get(k), v, k)
        self.assertEqual(set(pm["spec"]), {"selector", "podMetricsEndpoints"})
        (endpoint,) = pm["spec"]["podMetricsEndpoints"]
        self.assertEqual(set(endpoint) - {"port", "path", "interval"}, set())
        self.assertIn(endpoint["port"],
                      [p["name"] for p in container()["ports"]])
        self.assertEqual(endpoint["path"], "/metrics")

    def test_scraped_with_the_manifests_capabilities(self):
        need_root(self)
        port = free_port()
        with tempfile.TemporaryDirectory() as tmp:
            argv = (setpriv(added_caps()) +
                    manifest_command(os.path.join(tmp, "out.jsonl"), port) +
                    ["--duration", "60"])
            err_path = os.path.join(tmp, "stderr")
            with open(err_path, "w") as err:
                snoop = subprocess.Popen(argv, stderr=err,
                                         start_new_session=True)
            try:
                url = "http://127.0.0.1:%d/metrics" % port
                deadline = time.monotonic() + 30
                while True:
                    with open(err_path) as f:
                        said = f.read()
                    if url in said:
                        break
                    if snoop.poll() is not None or time.monotonic() > deadline:
                        self.fail("awaited \"serving metrics at %s\" on "
                                  "stderr; biosnoop said: %s" % (url, said))
                    time.sleep(0.05)  # polling a file, not an order
                text, kind = self.get(url, None)
                self.assertTrue(kind.startswith("text/plain"), kind)
                for want in ("biosnoop_build_info{version=",
                             "\nprocess_open_fds ",
                             "\nprocess_resident_memory_bytes ",
                             "\nbiosnoop_lost_total 0\n"):
                    self.assertIn(want, text)
                body, kind = self.get(
                    url, "application/vnd.google.protobuf;"
                    "proto=io.prometheus.client.MetricFamily;"
                    "encoding=delimited")
                self.assertTrue(kind.startswith(
                    "application/vnd.google.protobuf"), kind)
                self.assertIn(b"process_open_fds", body)
                os.killpg(snoop.pid, signal.SIGTERM)
                self.assertEqual(snoop.wait(timeout=30), 0)
            finally:
                if snoop.poll() is None:
                    os.killpg(snoop.pid, signal.SIGKILL)
                    snoop.wait()

    @staticmethod
    def get(url, accept):
        req = urllib.request.Request(url)
        if accept:
            req.add_header("Accept", accept)
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
            kind = r.headers.get("Content-Type", "")
        return (body if accept else body.decode()), kind


class Dockerfile(unittest.TestCase):

    def stages(self):
        with open(DOCKERFILE) as f:
            text = re.sub(r"\\\n", " ", f.read())
        stages = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            if word.upper() == "FROM":
                stages.append({"from": rest, "lines": []})
            else:
                self.assertTrue(stages, "an instruction before FROM")
                stages[-1]["lines"].append((word.upper(), rest))
        return stages

    def test_debian_12_multi_stage_with_the_projects_tools(self):
        stages = self.stages()
        self.assertEqual(len(stages), 2)
        self.assertTrue(stages[0]["from"].startswith("debian:12 "))
        self.assertEqual(stages[1]["from"], "debian:12-slim")
        build_runs = " ".join(r for w, r in stages[0]["lines"] if w == "RUN")
        self.assertIn("tools/install-deps", build_runs)
        self.assertIn("tools/build", build_runs)

    def test_runtime_packages_cover_the_linked_libraries(self):
        stages = self.stages()
        runs = " ".join(r for w, r in stages[1]["lines"] if w == "RUN")
        m = re.search(r"apt-get install ((?:-\S+ )*)([^&]+)", runs)
        self.assertIsNotNone(m, "no apt-get install in the runtime stage")
        listed = set(m.group(2).split())
        # In debian:12-slim already.
        base = {"libc6", "libstdc++6", "libgcc-s1"}
        needed = {}
        for prog in (biosnoop(), os.path.join(BUILD, "tools", "bioreport",
                                              "bioreport"),
                     # The metrics endpoint's module, loaded by biosnoop.
                     os.path.join(BUILD, "cpp", "biosnoop-metrics.so")):
            # The libraries it names itself (NEEDED): theirs come with
            # their packages' dependencies.
            dump = subprocess.run(["objdump", "-p", prog], capture_output=True,
                                  text=True, check=True).stdout
            direct = re.findall(r"^\s*NEEDED\s+(\S+)$", dump, re.M)
            ldd = subprocess.run(["ldd", prog], capture_output=True,
                                 text=True, check=True).stdout
            where = dict(re.findall(r"^\s*(\S+) => (/\S+)", ldd, re.M))
            for name in direct:
                lib = os.path.realpath(where[name])
                owner = subprocess.run(["dpkg", "-S", lib],
                                       capture_output=True, text=True)
                if owner.returncode != 0:  # /usr/lib vs /lib (usrmerge)
                    owner = subprocess.run(
                        ["dpkg", "-S", re.sub(r"^/usr", "", lib)],
                        capture_output=True, text=True)
                self.assertEqual(owner.returncode, 0, lib)
                pkg = owner.stdout.split(":")[0]
                needed.setdefault(pkg, set()).add(
                    "%s (%s)" % (name, os.path.basename(prog)))
        missing = {p: sorted(v) for p, v in needed.items()
                   if p not in listed | base}
        self.assertEqual(missing, {}, "runtime packages missing")
        unused = listed - set(needed)
        self.assertEqual(unused, set(), "runtime packages nothing links")

    def test_copied_files_are_installed_there(self):
        stages = self.stages()
        copies = [r.split() for w, r in stages[1]["lines"] if w == "COPY"]
        with tempfile.TemporaryDirectory() as prefix:
            subprocess.run(["cmake", "--install", BUILD, "--prefix",
                            prefix + "/usr/local"], check=True,
                           capture_output=True)
            for c in copies:
                self.assertEqual(c[0], "--from=build", c)
                src = c[1]
                self.assertTrue(src.startswith("/out/"), src)
                self.assertTrue(os.path.exists(prefix + src[4:]),
                                "%s: not installed by cmake --install" % src)
        entry = [r for w, r in stages[1]["lines"] if w == "ENTRYPOINT"]
        self.assertEqual(json.loads(entry[0])[0], "/usr/local/sbin/biosnoop")
        self.assertEqual(container()["command"][0], "/usr/local/sbin/biosnoop")


class Docs(unittest.TestCase):

    def test_guide_is_linked(self):
        with open(os.path.join(SOURCE, "README.md")) as f:
            self.assertTrue("docs/kubernetes.md" in f.read(),
                            "README does not link docs/kubernetes.md")
        with open(os.path.join(SOURCE, "docs", "kubernetes.md")) as f:
            guide = f.read()
        for what in ("examples/kubernetes/daemonset.yaml",
                     "examples/kubernetes/Dockerfile",
                     "examples/kubernetes/podmonitor.yaml", "pod_uid",
                     "container_id", "SIGHUP", "examples/shipping/"):
            self.assertTrue(what in guide, "the guide names no " + what)


if __name__ == "__main__":
    SOURCE, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    MANIFEST = os.path.join(SOURCE, "examples", "kubernetes", "daemonset.yaml")
    DOCKERFILE = os.path.join(SOURCE, "examples", "kubernetes", "Dockerfile")
    PODMONITOR = os.path.join(SOURCE, "examples", "kubernetes",
                              "podmonitor.yaml")
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
