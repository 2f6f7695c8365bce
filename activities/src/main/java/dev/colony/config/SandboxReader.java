package dev.colony.config;

import dev.colony.spec.SandboxSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code sandbox} block shared by the colony's {@code defaults} and each ant: the walls
 * around a session. {@code off} (or {@code false}) is the explicit opt-out; {@code on} keeps the
 * inherited walls; a mapping sets {@code network}, {@code secrets}, {@code memory},
 * {@code processes}, {@code read} and {@code write} over the inherited ones.
 */
final class SandboxReader {
  private SandboxReader() {}

  static final String KEY = "sandbox";
  private static final Pattern SIZE = Pattern.compile("(\\d{1,12})\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);
  private static final Pattern HOST = Pattern.compile(
      "(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*(:\\d{1,5})?"
          + "|\\[[0-9A-Fa-f:.]{2,45}\\](:\\d{1,5})?");
  private static final Pattern VAR = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
  /** The smallest memory limit: below it no agent CLI starts, and the error would be a mystery. */
  static final long MIN_MEMORY = 64L * 1024 * 1024;

  static SandboxSpec read(Node n, SandboxSpec base) {
    if (!n.has(KEY)) {
      return base;
    }
    SandboxSpec b = base == null ? SandboxSpec.DEFAULTS : base;
    if (!n.isMapping(KEY)) {
      String raw = n.raw(KEY);
      if (raw != null && (raw.equals("off") || OverseerReader.SWITCH_OFF.contains(raw))) {
        return SandboxSpec.OFF;
      }
      if (raw != null && (raw.equals("on") || OverseerReader.SWITCH_ON.contains(raw))) {
        return b.off() ? SandboxSpec.DEFAULTS : b;
      }
      if (raw != null) {
        n.problem(KEY, "expected on, off or a mapping (network, secrets, memory, processes, read, write); found '"
            + (raw.length() > 40 ? raw.substring(0, 40) + "…" : raw) + "'");
      }
      return base;
    }
    Node v = n.child(KEY);
    if (v == null) {
      return base;
    }
    if (b.off()) {
      b = SandboxSpec.DEFAULTS; // a mapping turns an inherited off back on, with these settings
    }
    v.allowOnly(ConfigSchema.ANT.child(KEY));
    boolean open = b.networkOpen();
    List<String> allow = b.allow();
    if (v.has("network")) {
      if (!v.isMapping("network")) {
        String raw = v.raw("network");
        if ("open".equals(raw)) {
          open = true;
        } else if ("none".equals(raw)) {
          open = false;
          allow = List.of();
        } else {
          v.problem("network", "expected open, none or a mapping with allow: [hosts]; found '" + clip(raw) + "'");
        }
      } else {
        Node net = v.child("network");
        if (net != null) {
          net.allowOnly(ConfigSchema.ANT.child(KEY).child("network"));
          List<String> hosts = net.stringList("allow", false);
          if (hosts != null) {
            List<String> ok = new ArrayList<>();
            for (int i = 0; i < hosts.size(); i++) {
              String h = hosts.get(i).strip();
              if (!HOST.matcher(h).matches() || !portOk(h)) {
                net.problem("allow[" + i + "]", "invalid host '" + clip(h)
                    + "': expected a host name or address, optionally with :port (api.example.com, 10.0.0.5:8080, *.example.com)");
              } else {
                ok.add(h.toLowerCase(Locale.ROOT));
              }
            }
            allow = List.copyOf(ok);
            open = false;
          }
        }
      }
    }
    List<String> secrets = b.secrets();
    // NAME, or ${NAME} (then checked like every reference: set in the environment or .env)
    List<String> names = v.stringList("secrets", true);
    if (names != null) {
      List<String> ok = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        String s = names.get(i).strip();
        if (s.startsWith("${") && s.endsWith("}")) {
          s = s.substring(2, s.length() - 1);
        }
        if (!VAR.matcher(s).matches()) {
          v.problem("secrets[" + i + "]", "invalid variable name '" + clip(names.get(i))
              + "': name the variable (GITHUB_TOKEN or ${GITHUB_TOKEN}); its value stays on the worker");
        } else {
          ok.add(s);
        }
      }
      secrets = List.copyOf(ok);
    }
    long memory = b.memoryBytes();
    if (v.has("memory")) {
      String raw = v.raw("memory");
      if ("off".equals(raw) || OverseerReader.SWITCH_OFF.contains(String.valueOf(raw))) {
        memory = 0;
      } else {
        Long bytes = size(raw);
        if (bytes == null || bytes < MIN_MEMORY) {
          v.problem("memory", bytes == null
              ? "invalid size '" + clip(raw) + "': expected a number with a unit, such as 512m or 4g (or off)"
              : "at least 64m: " + clip(raw) + " is too little for any agent to start");
        } else {
          memory = bytes;
        }
      }
    }
    int processes = b.processes();
    if (v.has("processes")) {
      String raw = v.raw("processes");
      if ("off".equals(raw) || OverseerReader.SWITCH_OFF.contains(String.valueOf(raw))) {
        processes = 0;
      } else {
        Integer p = raw != null && raw.matches("\\d{1,7}") ? Integer.parseInt(raw) : null;
        if (p == null || p < 16) {
          v.problem("processes", "expected a whole number of at least 16 (or off); found '" + clip(raw) + "'");
        } else {
          processes = p;
        }
      }
    }
    List<String> read = paths(v, "read", b.read());
    List<String> write = paths(v, "write", b.write());
    return new SandboxSpec(false, open, allow, secrets, memory, processes, read, write);
  }

  private static List<String> paths(Node v, String key, List<String> fallback) {
    List<String> list = v.stringList(key, false);
    if (list == null) {
      return fallback;
    }
    List<String> ok = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      String p = list.get(i).strip();
      String at = key + "[" + i + "]";
      if (p.isEmpty() || p.contains("\0")) {
        v.problem(at, "expected a path (absolute, or relative to the colony directory)");
        continue;
      }
      Path path = Path.of(p).normalize();
      if (path.isAbsolute()) {
        if (path.getNameCount() == 0) {
          v.problem(at, "the whole file system cannot be granted: name the directories the agent needs");
          continue;
        }
      } else if (path.toString().isEmpty() || path.startsWith("..")) {
        v.problem(at, "'" + clip(p) + "' is the colony directory or outside it: name a directory inside it, or an absolute path");
        continue;
      } else if (SandboxSpec.COLONY_OWN.contains(path.getName(0).toString())) {
        v.problem(at, "'" + clip(p) + "' is the colony's own " + path.getName(0)
            + ": an agent never gets its config, secrets or state");
        continue;
      }
      ok.add(path.toString());
    }
    return List.copyOf(ok);
  }

  private static boolean portOk(String h) {
    int colon = h.lastIndexOf(':');
    if (colon < 0 || h.endsWith("]") || (h.startsWith("[") && h.indexOf(']') > colon)) {
      return true;
    }
    int port = Integer.parseInt(h.substring(colon + 1));
    return port >= 1 && port <= 65535;
  }

  /** 512m, 4g, 4GiB, 1073741824: bytes; null when it is none of those. */
  static Long size(String raw) {
    if (raw == null) {
      return null;
    }
    Matcher m = SIZE.matcher(raw.strip());
    if (!m.matches()) {
      return null;
    }
    long n = Long.parseLong(m.group(1));
    int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      case "t" -> 40;
      default -> 0;
    };
    if (n > (Long.MAX_VALUE >> shift)) {
      return null;
    }
    return n << shift;
  }

  private static String clip(String s) {
    if (s == null) {
      return "";
    }
    return s.length() > 60 ? s.substring(0, 60) + "…" : s;
  }
}
