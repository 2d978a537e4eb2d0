"""CUBE4 files (profile.cubex: ours, runtime/profile/profile_cube.c, or Score-P's) for
the tools: scorep-score scores them, scorep-info summarises them.

    load(path) -> the profile in profile.json's layout (docs/PROFILE_FORMAT.md),
                  so that the tools' code for profile.json serves both
    summary(path, top=10) -> lines of text

Read with the standard library only: the archive is a tar (gzip-compressed
too), anchor.xml the definitions, <id>.index / <id>.data the values of metric
<id> per listed cnode and location (CUBEX.DATA raw, ZCUBEX.DATA zlib per row).
A CUBE file has no message or collective counts: where a tool needs them
(scorep-score's trace estimate) they are derived from the region's role,
one message or operation per visit that moved bytes, as Score-P's own
estimate does from region types."""
import re
import struct
import tarfile
import xml.etree.ElementTree as ET
import zlib

SIZES = {"UINT64": "Q", "INT64": "q", "DOUBLE": "d", "MINDOUBLE": "d", "MAXDOUBLE": "d", "UINT32": "I",
         "INT32": "i", "INTEGER": "i", "INT": "i", "UINT16": "H", "INT16": "h", "UINT8": "B", "INT8": "b",
         "CHAR": "b", "FLOAT": "f"}
# the role names Score-P writes (and "collective", ours before we wrote Score-P's)
COLLECTIVE_ROLES = {"other collective", "collective", "barrier", "one2all", "all2one", "all2all"}
# where a non-blocking receive's bytes are counted: request completion, of role
# function in Score-P's files and ours
COMPLETION = re.compile(r"MPI_(Wait|Test)(all|any|some)?")


class CubeError(Exception):
    pass


def is_cube(path):
    """Whether path names a CUBE file: by its name, or a tar holding anchor.xml."""
    if str(path).endswith(".cubex"):
        return True
    try:
        with tarfile.open(path, "r:*") as tar:
            return "anchor.xml" in tar.getnames()
    except (tarfile.TarError, OSError, EOFError):
        return False


class _Cube:
    def __init__(self, path):
        self.path = str(path)
        try:
            with tarfile.open(path, "r:*") as tar:
                self.members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        except (tarfile.TarError, EOFError) as e:
            raise CubeError(f"{path}: not a CUBE file (not a tar archive: {e})") from e
        if "anchor.xml" not in self.members:
            raise CubeError(f"{path}: not a CUBE file (no anchor.xml)")
        try:
            root = ET.fromstring(self.members["anchor.xml"])
        except ET.ParseError as e:
            raise CubeError(f"{path}: anchor.xml is not readable XML: {e}") from e
        self.version = root.get("version", "?")
        self.attrs = {a.get("key"): a.get("value") for a in root.findall("attr")}
        self.metrics = []
        for m in root.find("metrics").iter("metric"):
            self.metrics.append({"id": int(m.get("id")), "type": m.get("type", "EXCLUSIVE"),
                                 **{f: (m.findtext(f) or "") for f in ("uniq_name", "disp_name", "dtype", "uom")}})
        program = root.find("program")
        self.regions = {}
        for r in program.iter("region"):
            self.regions[int(r.get("id"))] = {
                "id": int(r.get("id")), "name": r.findtext("name") or "", "file": r.get("mod") or None,
                "line": int(r.get("begin", "-1")) if int(r.get("begin", "-1")) > 0 else None,
                "paradigm": r.findtext("paradigm") or "user", "role": r.findtext("role") or "function",
                "group": r.findtext("descr") or None, "filtered": False}
        self.cnodes = {}
        self.roots = [int(c.get("id")) for c in program.findall("cnode")]
        self.children = {}
        stack = [(c, None) for c in program.findall("cnode")]
        while stack:
            c, parent = stack.pop()
            entry = {"id": int(c.get("id")), "region": int(c.get("calleeId")), "parent": parent}
            self.children[entry["id"]] = [int(child.get("id")) for child in c.findall("cnode")]
            p = c.find("parameter")
            if p is not None:
                value = p.get("parvalue")
                if p.get("partype") == "numeric":
                    try:
                        value = int(value)
                    except (TypeError, ValueError):
                        pass
                entry["parameter"] = {"name": p.get("parkey"), "value": value}
            self.cnodes[entry["id"]] = entry
            stack += [(child, entry["id"]) for child in c.findall("cnode")]
        self.locations = {}
        self.nodes = set()
        # CubeLib spells the system tree's id attribute "Id"
        stack = [(n, None) for n in root.find("system").findall("systemtreenode")]
        while stack:
            n, node = stack.pop()
            if n.findtext("class") == "node":
                node = n.findtext("name")
                self.nodes.add(node)
            stack += [(child, node) for child in n.findall("systemtreenode")]
            for group in n.findall("locationgroup"):
                rank = int(group.findtext("rank") or 0)
                for loc in group.findall("location"):
                    lid = int(loc.get("Id", loc.get("id")))
                    self.locations[lid] = {"id": lid, "rank": rank, "thread": int(loc.findtext("rank") or 0),
                                           "name": loc.findtext("name"), "node": node}

    def row_order(self, metric_type):
        """The cnodes in the order of a metric's rows (row ids index it), as
        CubeLib enumerates them: depth first for EXCLUSIVE metrics; for
        INCLUSIVE ones each root, then for every cnode, depth first, all its
        children before any of theirs."""
        order = []
        stack = list(reversed(self.roots))
        if metric_type != "INCLUSIVE":
            while stack:
                c = stack.pop()
                order.append(c)
                stack += reversed(self.children.get(c, []))
            return order
        for root in self.roots:
            order.append(root)
            stack = [root]
            while stack:
                c = stack.pop()
                order += self.children.get(c, [])
                stack += reversed(self.children.get(c, []))
        return order

    def values(self, uniq_name):
        """{(cnode, location): value} of a metric, as stored, neutral values
        (0, and +-DBL_MAX for minima and maxima) left out; {} if absent."""
        metric = next((m for m in self.metrics if m["uniq_name"] == uniq_name), None)
        if metric is None or f"{metric['id']}.data" not in self.members:
            return {}
        index = self.members.get(f"{metric['id']}.index", b"")
        data = self.members[f"{metric['id']}.data"]
        if index[:11] != b"CUBEX.INDEX":
            raise CubeError(f"{self.path}: {metric['id']}.index is not a CUBE index")
        order = "<" if struct.unpack("<i", index[11:15])[0] == 1 else ">"
        kind = index[17]
        if kind == 1:
            (n,) = struct.unpack(order + "I", index[18:22])
            rows = struct.unpack(order + f"{n}I", index[22:22 + 4 * n])
        else:
            rows = range(len(self.cnodes))
        cnode_at = self.row_order(metric["type"])
        if any(r >= len(cnode_at) for r in rows):
            raise CubeError(f"{self.path}: {metric['id']}.index names rows beyond the {len(cnode_at)} cnodes")
        cnodes = [cnode_at[r] for r in rows]
        code = SIZES.get(metric["dtype"].upper())
        if code is None:
            return {}
        nloc = len(self.locations)
        if data[:11] == b"ZCUBEX.DATA":
            (segments,) = struct.unpack(order + "I", data[11:15])
            offset = 15 + 12 * segments
            raw = bytearray()
            for s in range(segments):
                size = struct.unpack(order + "I", data[15 + 12 * s + 8:15 + 12 * s + 12])[0]
                raw += zlib.decompress(data[offset:offset + size])
                offset += size
            body = bytes(raw)
        elif data[:10] == b"CUBEX.DATA":
            body = data[10:]
        else:
            raise CubeError(f"{self.path}: {metric['id']}.data is not CUBE data")
        count = nloc * len(cnodes)
        if len(body) < count * struct.calcsize(code):
            raise CubeError(f"{self.path}: {metric['id']}.data is shorter than its index says")
        flat = struct.unpack_from(order + f"{count}{code}", body)
        out = {}
        for row, cnode in enumerate(cnodes):
            for loc in range(nloc):
                v = flat[row * nloc + loc]
                if v and abs(v) < 1.7e308:
                    out[(cnode, loc)] = v
        return out

    def metric_type(self, uniq_name):
        return next((m["type"] for m in self.metrics if m["uniq_name"] == uniq_name), None)


def _exclusive_time_ns(cube, time):
    """time per (cnode, location) in ns, exclusive: Cube's INCLUSIVE time
    minus that of the children on the same location."""
    incl = {k: round(v * 1e9) for k, v in time.items()}
    if cube.metric_type("time") != "INCLUSIVE":
        return incl, incl
    excl = dict(incl)
    for (cnode, loc), v in incl.items():
        parent = cube.cnodes[cnode]["parent"]
        if parent is not None:
            excl[(parent, loc)] = excl.get((parent, loc), 0) - v
    return incl, {k: max(v, 0) for k, v in excl.items()}


# the memory adapter's metrics (Score-P's names): scorep-score counts the trace's
# Metric records from them
MEMORY_METRICS = ("allocation_size", "deallocation_size")


def _exclusive(cube, uniq_name):
    """{(cnode, location): value} of a metric, exclusive of the children."""
    values = cube.values(uniq_name)
    if cube.metric_type(uniq_name) != "INCLUSIVE":
        return values
    excl = dict(values)
    for (cnode, loc), v in values.items():
        parent = cube.cnodes[cnode]["parent"]
        if parent is not None:
            excl[(parent, loc)] = excl.get((parent, loc), 0) - v
    return {k: v for k, v in excl.items() if v > 0}


def _load(path):
    cube = _Cube(path)
    visits = cube.values("visits")
    incl, excl = _exclusive_time_ns(cube, cube.values("time"))
    tmin, tmax = cube.values("min_time"), cube.values("max_time")
    sent, received = cube.values("bytes_sent"), cube.values("bytes_received")
    put, get = cube.values("bytes_put"), cube.values("bytes_get")
    read, written = cube.values("io_bytes_read"), cube.values("io_bytes_written")
    memory = [(i, name, _exclusive(cube, name)) for i, name in enumerate(
        name for name in MEMORY_METRICS if cube.metric_type(name) is not None)]
    rows = []
    for key in sorted(set(visits) | set(incl) | set(excl) | set(sent) | set(received) | set(put) | set(get)):
        cnode, loc = key
        region = cube.regions[cube.cnodes[cnode]["region"]]
        role = region["role"]
        messages = role == "point2point" or (region["paradigm"] == "mpi" and COMPLETION.fullmatch(region["name"]))
        v = int(visits.get(key, 0))
        rows.append({"location": loc, "callpath": cnode, "visits": v, "time_incl_ns": incl.get(key, 0),
                     "time_excl_ns": excl.get(key, 0), "time_min_ns": round(tmin.get(key, 0) * 1e9),
                     "time_max_ns": round(tmax.get(key, 0) * 1e9), "bytes_sent": int(sent.get(key, 0)),
                     "bytes_received": int(received.get(key, 0)),
                     "bytes_put": int(put.get(key, 0)), "bytes_get": int(get.get(key, 0)),
                     "bytes_read": int(read.get(key, 0)), "bytes_written": int(written.get(key, 0)),
                     "messages_sent": v if sent.get(key) and messages else 0,
                     "messages_received": v if received.get(key) and messages else 0,
                     "collectives": v if role in COLLECTIVE_ROLES else 0})
        metrics = {str(i): int(values[key]) for i, _, values in memory if values.get(key)}
        if metrics:
            rows[-1]["metrics"] = metrics
    ranks = {l["rank"] for l in cube.locations.values()}
    profile = {
        "format": "scorep-wrapgen-profile", "version": 1, "source": "cube",
        "experiment": {"ranks": len(ranks), "timer": cube.attrs.get("scorep-wrapgen::timer"),
                       "start": cube.attrs.get("scorep-wrapgen::start"),
                       "command": cube.attrs.get("scorep-wrapgen::command"),
                       "partial": cube.attrs.get("scorep-wrapgen::partial") == "true", "time_unit": "ns",
                       "creator": cube.attrs.get("Creator", "")},
        "locations": [cube.locations[i] for i in sorted(cube.locations)],
        "regions": [cube.regions[i] for i in sorted(cube.regions)],
        "metrics": [{"id": i, "name": name, "unit": "bytes"} for i, name, _ in memory],
        "callpaths": [cube.cnodes[i] for i in sorted(cube.cnodes)], "rows": rows}
    return cube, profile


def _checked(function, path, *args):
    """function(path, ...), its failures on a malformed file said as CubeError."""
    try:
        return function(path, *args)
    except (KeyError, ValueError, TypeError, AttributeError, IndexError, struct.error, zlib.error) as e:
        raise CubeError(f"{path}: malformed CUBE file ({type(e).__name__}: {e})") from e


def load(path):
    """The CUBE file as a profile in profile.json's layout."""
    return _checked(_load, path)[1]


def summary(path, top=10):
    return _checked(_summary, path, top)


def _summary(path, top):
    """What a CUBE file holds, as lines: metrics with their totals, the
    numbers of call paths, regions and locations, the top call paths by
    exclusive time."""
    cube, profile = _load(path)
    lines = [f"{path}: CUBE {cube.version}, written by {cube.attrs.get('Creator', 'an unknown tool')}"
             + (" (partial: the run ended abnormally)" if profile["experiment"]["partial"] else "")]
    lines.append(f"metrics ({len(cube.metrics)}):")
    for m in cube.metrics:
        values = cube.values(m["uniq_name"])
        kind = m["dtype"].upper()
        if kind == "MINDOUBLE":
            total, how = (min(values.values()) if values else 0), "min"
        elif kind == "MAXDOUBLE":
            total, how = (max(values.values()) if values else 0), "max"
        else:
            # an INCLUSIVE metric's total is that of the roots
            if m["type"] == "INCLUSIVE":
                values = {k: v for k, v in values.items() if cube.cnodes[k[0]]["parent"] is None}
            total, how = sum(values.values()), "total"
        shown = f"{total:.6g}" if isinstance(total, float) else f"{total:,}"
        lines.append(f"  {m['uniq_name']:<20} {m['uom'] or '-':<6} {m['dtype']:<10} {m['type'].lower():<10} "
                     f"{how} {shown}")
    processes = {l["rank"] for l in cube.locations.values()}
    lines.append(f"call paths: {len(cube.cnodes)}  regions: {len(cube.regions)}  locations: "
                 f"{len(cube.locations)} ({len(processes)} processes on {len(cube.nodes) or 1} node(s))")
    per_cnode = {}
    visits = {}
    for row in profile["rows"]:
        per_cnode[row["callpath"]] = per_cnode.get(row["callpath"], 0) + row["time_excl_ns"]
        visits[row["callpath"]] = visits.get(row["callpath"], 0) + row["visits"]
    all_time = sum(per_cnode.values()) or 1

    def frame(cnode):
        c = cube.cnodes[cnode]
        if "parameter" in c:
            return f"{c['parameter']['name']}={c['parameter']['value']}"
        return cube.regions[c["region"]]["name"]

    def path_of(cnode):
        frames = []
        while cnode is not None:
            frames.append(frame(cnode))
            cnode = cube.cnodes[cnode]["parent"]
        return "/".join(reversed(frames))

    lines.append(f"top call paths by exclusive time (of {len(per_cnode)} with data):")
    lines.append(f"  {'time[s]':>10} {'time[%]':>7} {'visits':>12}  call path")
    for cnode in sorted(per_cnode, key=lambda c: (-per_cnode[c], c))[:top]:
        lines.append(f"  {per_cnode[cnode] / 1e9:>10.6f} {100 * per_cnode[cnode] / all_time:>7.1f} "
                     f"{visits.get(cnode, 0):>12,}  {path_of(cnode)}")
    return lines
