"""A reader of CUBE4 files (profile.cubex) written for the tests from the
format's public description (Cube's "CUBE4 file format" notes and those of
independent readers such as pyCubexR), not from our writer
(runtime/profile/profile_cube.c): it shares no code with it and checks what the
format requires, so that a file it accepts is one Cube's tools can read.

    cube = read("profile.cubex")
    cube.metrics      [{"id", "uniq_name", "disp_name", "dtype", "uom", "type", "descr"}] by id
    cube.regions      {id: {"name", "mod", "begin", "end", "paradigm", "role", "descr", ...}}
    cube.cnodes       {id: {"id", "callee", "parent", "parameters": [(type, key, value)]}}
    cube.locations    {id: {"name", "rank", "type", "process": {...}, "node": name, "machine": name}}
    cube.attrs        {key: value} of the <cube> element
    cube.values(uniq_name) -> {(cnode id, location id): value}, zeros left out

Raises CubeFormatError naming the member and what is wrong."""
import struct
import tarfile
import xml.etree.ElementTree as ET

# bytes and struct code of the data types a metric's <dtype> may name
DTYPES = {
    "UINT64": "Q", "INT64": "q", "DOUBLE": "d", "MINDOUBLE": "d", "MAXDOUBLE": "d",
    "UINT32": "I", "INT32": "i", "INTEGER": "i", "INT": "i", "UNSIGNED INT": "I",
    "UINT16": "H", "INT16": "h", "UINT8": "B", "INT8": "b", "CHAR": "b", "FLOAT": "f",
}


class CubeFormatError(Exception):
    pass


class Cube:
    def __init__(self, members, anchor):
        self._members = members
        self.attrs = {}
        self.metrics = []
        self.regions = {}
        self.cnodes = {}
        self.locations = {}
        self.version = anchor.get("version", "")
        if anchor.tag != "cube":
            raise CubeFormatError(f"anchor.xml: root element is <{anchor.tag}>, not <cube>")
        if not self.version.startswith("4."):
            raise CubeFormatError(f"anchor.xml: cube version {self.version!r} is not 4.x")
        for attr in anchor.findall("attr"):
            self.attrs[attr.get("key")] = attr.get("value")
        metrics = anchor.find("metrics")
        if metrics is None:
            raise CubeFormatError("anchor.xml: no <metrics>")
        for metric in metrics.iter("metric"):
            entry = {"id": int(metric.get("id")), "type": metric.get("type", "EXCLUSIVE")}
            for field in ("disp_name", "uniq_name", "dtype", "uom", "url", "descr"):
                node = metric.find(field)
                entry[field] = (node.text or "") if node is not None else None
            if entry["uniq_name"] is None or entry["dtype"] is None:
                raise CubeFormatError(f"anchor.xml: metric {entry['id']} lacks uniq_name or dtype")
            if entry["dtype"].upper() not in DTYPES:
                raise CubeFormatError(f"anchor.xml: metric {entry['uniq_name']}: unknown dtype {entry['dtype']}")
            self.metrics.append(entry)
        program = anchor.find("program")
        if program is None:
            raise CubeFormatError("anchor.xml: no <program>")
        for region in program.findall("region"):
            entry = {"id": int(region.get("id")), "mod": region.get("mod", ""),
                     "begin": int(region.get("begin", "-1")), "end": int(region.get("end", "-1"))}
            for field in ("name", "mangled_name", "paradigm", "role", "url", "descr"):
                node = region.find(field)
                entry[field] = (node.text or "") if node is not None else None
            self.regions[entry["id"]] = entry
        stack = [(c, None) for c in reversed(program.findall("cnode"))]
        self.roots = [int(c.get("id")) for c in program.findall("cnode")]
        self.children = {}
        while stack:
            cnode, parent = stack.pop()
            cid = int(cnode.get("id"))
            callee = int(cnode.get("calleeId"))
            if cid in self.cnodes:
                raise CubeFormatError(f"anchor.xml: cnode id {cid} used twice")
            if callee not in self.regions:
                raise CubeFormatError(f"anchor.xml: cnode {cid} calls region {callee}, which is not defined")
            params = [(p.get("partype"), p.get("parkey"), p.get("parvalue")) for p in cnode.findall("parameter")]
            self.cnodes[cid] = {"id": cid, "callee": callee, "parent": parent, "parameters": params}
            self.children[cid] = [int(c.get("id")) for c in cnode.findall("cnode")]
            stack += [(c, cid) for c in reversed(cnode.findall("cnode"))]
        system = anchor.find("system")
        if system is None:
            raise CubeFormatError("anchor.xml: no <system>")
        self._read_system(system)
        if sorted(self.locations) != list(range(len(self.locations))):
            raise CubeFormatError("anchor.xml: location ids are not 0..n-1")

    def _read_system(self, system):
        def text(node, field):
            child = node.find(field)
            return (child.text or "") if child is not None else ""

        stack = [(n, []) for n in system.findall("systemtreenode")]
        while stack:
            stn, path = stack.pop()
            path = path + [(text(stn, "class"), text(stn, "name"))]
            stack += [(n, path) for n in stn.findall("systemtreenode")]
            for group in stn.findall("locationgroup"):
                # CubeLib writes the system tree's ids as "Id"
                process = {"id": int(group.get("Id", group.get("id"))), "name": text(group, "name"),
                           "rank": int(text(group, "rank")), "type": text(group, "type")}
                for loc in group.findall("location"):
                    lid = int(loc.get("Id", loc.get("id")))
                    if lid in self.locations:
                        raise CubeFormatError(f"anchor.xml: location id {lid} used twice")
                    classes = dict(path)
                    self.locations[lid] = {"id": lid, "name": text(loc, "name"), "rank": int(text(loc, "rank")),
                                           "type": text(loc, "type"), "process": process,
                                           "node": classes.get("node"), "machine": classes.get("machine"),
                                           "tree": path}

    def metric(self, uniq_name):
        for m in self.metrics:
            if m["uniq_name"] == uniq_name:
                return m
        raise KeyError(uniq_name)

    def row_order(self, metric_type):
        """The cnodes in the order of a metric's rows: the row ids of its index
        are positions in this list. CUBE4 enumerates cnodes depth first for
        EXCLUSIVE metrics; for INCLUSIVE ones each root, then for every cnode
        (depth first) all its children before any of theirs."""
        order = []
        if metric_type == "INCLUSIVE":
            def expand(c):
                order.extend(self.children[c])
                for child in self.children[c]:
                    expand(child)
            for root in self.roots:
                order.append(root)
                expand(root)
        else:
            def walk(c):
                order.append(c)
                for child in self.children[c]:
                    walk(child)
            for root in self.roots:
                walk(root)
        return order

    def values(self, uniq_name):
        """{(cnode, location): value} of one metric, neutral values (zeros; for
        minima and maxima Cube's "none", +-DBL_MAX) left out; the values as
        stored (inclusive or exclusive, by the metric's type)."""
        m = self.metric(uniq_name)
        index_name, data_name = f"{m['id']}.index", f"{m['id']}.data"
        if index_name not in self._members and data_name not in self._members:
            return {}      # a metric without data: all zero
        index = self._member(index_name)
        data = self._member(data_name)
        if index[:11] != b"CUBEX.INDEX":
            raise CubeFormatError(f"{index_name}: does not begin with CUBEX.INDEX")
        order = "<" if struct.unpack("<i", index[11:15])[0] == 1 else ">"
        if struct.unpack(order + "i", index[11:15])[0] != 1:
            raise CubeFormatError(f"{index_name}: endianness mark is not 1 in either byte order")
        version, kind = struct.unpack(order + "HB", index[15:18])
        nloc = len(self.locations)
        if kind == 1:
            (count,) = struct.unpack(order + "I", index[18:22])
            if len(index) != 22 + 4 * count:
                raise CubeFormatError(f"{index_name}: {len(index)} bytes for {count} cnode ids")
            rows = list(struct.unpack(order + f"{count}I", index[22:]))
        elif kind == 0:
            if len(index) != 18:
                raise CubeFormatError(f"{index_name}: a dense index has nothing after its header")
            rows = list(range(len(self.cnodes)))
        else:
            raise CubeFormatError(f"{index_name}: unknown index type {kind}")
        if rows != sorted(rows) or len(set(rows)) != len(rows):
            raise CubeFormatError(f"{index_name}: row ids are not increasing")
        unknown = [c for c in rows if not 0 <= c < len(self.cnodes)]
        if unknown:
            raise CubeFormatError(f"{index_name}: row ids {unknown[:5]} are beyond the {len(self.cnodes)} cnodes")
        cnode_at = self.row_order(m["type"])
        cnodes = [cnode_at[r] for r in rows]
        if data[:10] != b"CUBEX.DATA":
            raise CubeFormatError(f"{data_name}: does not begin with CUBEX.DATA (compressed data is not read here)")
        code = DTYPES[m["dtype"].upper()]
        size = struct.calcsize(code)
        if len(data) != 10 + size * nloc * len(cnodes):
            raise CubeFormatError(f"{data_name}: {len(data) - 10} bytes of values, expected "
                                  f"{len(cnodes)} rows x {nloc} locations x {size}")
        flat = struct.unpack(order + f"{nloc * len(cnodes)}{code}", data[10:])
        result = {}
        for row, cnode in enumerate(cnodes):
            for loc in range(nloc):
                value = flat[row * nloc + loc]
                if value and abs(value) < 1.7e308:
                    result[(cnode, loc)] = value
        return result

    def _member(self, name):
        if name not in self._members:
            raise CubeFormatError(f"the archive has no member {name}")
        return self._members[name]

    def call_path(self, cnode):
        """The frames from the root: [(region name, parameters)]."""
        frames = []
        while cnode is not None:
            c = self.cnodes[cnode]
            frames.append((self.regions[c["callee"]]["name"], tuple(c["parameters"])))
            cnode = c["parent"]
        return frames[::-1]


def read(path):
    """Reads a whole CUBE4 archive (tar, optionally gzip-compressed)."""
    try:
        with tarfile.open(path, "r:*") as tar:
            members = {}
            for info in tar.getmembers():
                if not info.isfile():
                    raise CubeFormatError(f"{path}: member {info.name} is not a regular file")
                members[info.name] = tar.extractfile(info).read()
    except tarfile.TarError as e:
        raise CubeFormatError(f"{path}: not a tar archive: {e}") from e
    if "anchor.xml" not in members:
        raise CubeFormatError(f"{path}: no anchor.xml")
    try:
        anchor = ET.fromstring(members["anchor.xml"])
    except ET.ParseError as e:
        raise CubeFormatError(f"{path}: anchor.xml is not well-formed XML: {e}") from e
    return Cube(members, anchor)
