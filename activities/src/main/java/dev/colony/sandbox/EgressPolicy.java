package dev.colony.sandbox;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where one ant's session may connect through the egress proxy: its allow list ({@code sandbox:
 * network: allow:}, plus its engine's API host), checked against the destination's name and then
 * against every address the name resolves to on the worker.
 *
 * <p>An entry is {@code host} (any port), {@code host:port}, {@code *.domain} (any name under the
 * domain, any port) or {@code *.domain:port}; a host may be an IPv4 address. A destination that
 * resolves to an address of the worker's own machine or network (loopback, RFC 1918 private,
 * carrier-grade NAT, link-local with the cloud metadata service, IPv6 unique-local, multicast,
 * unspecified) is refused even when its name is on the list, unless an entry names exactly that
 * host and port, or that address: a fake API on {@code 127.0.0.1:8089} is reached because the list
 * says {@code 127.0.0.1:8089}; {@code *.example.com} never reaches a private address, whatever its
 * DNS says.
 */
public final class EgressPolicy {
  /** One allow-list entry. {@code port} -1: any port. */
  record Entry(String host, boolean wildcard, int port, String text) {
    boolean matches(String h, int p) {
      if (port >= 0 && port != p) {
        return false;
      }
      return wildcard ? h.endsWith("." + host) : h.equals(host);
    }

    /** Names this very destination (host and port, or the address itself): may reach a private one. */
    boolean exactly(String h, int p, InetAddress address) {
      if (wildcard) {
        return false;
      }
      if (port >= 0 && port == p && h.equals(host)) {
        return true;
      }
      return isAddressLiteral(host) && (port < 0 || port == p) && host.equals(address.getHostAddress());
    }
  }

  /** The verdict on one destination: the address to connect to (the one checked), or why not. */
  public record Decision(InetAddress address, String refusal) {
    public boolean allowed() {
      return refusal == null;
    }
  }

  /** How names are resolved (the system's resolver; tests give their own). */
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  static final Resolver SYSTEM = InetAddress::getAllByName;

  private final List<Entry> entries;
  private final Resolver resolver;

  public EgressPolicy(List<String> allow) {
    this(allow, SYSTEM);
  }

  EgressPolicy(List<String> allow, Resolver resolver) {
    List<Entry> es = new ArrayList<>();
    for (String a : allow) {
      Entry e = parse(a);
      if (e != null) {
        es.add(e);
      }
    }
    this.entries = List.copyOf(es);
    this.resolver = resolver;
  }

  /** The entries as written (normalised), for the log and the status. */
  public List<String> allowList() {
    return entries.stream().map(Entry::text).toList();
  }

  static Entry parse(String raw) {
    String s = raw == null ? "" : raw.strip().toLowerCase(Locale.ROOT);
    if (s.isEmpty()) {
      return null;
    }
    int port = -1;
    int colon = s.lastIndexOf(':');
    if (colon > 0 && s.indexOf(':') == colon) {
      try {
        port = Integer.parseInt(s.substring(colon + 1));
      } catch (NumberFormatException e) {
        return null;
      }
      if (port < 1 || port > 65535) {
        return null;
      }
      s = s.substring(0, colon);
    }
    boolean wildcard = s.startsWith("*.");
    String host = normalHost(wildcard ? s.substring(2) : s);
    if (host.isEmpty()) {
      return null;
    }
    return new Entry(host, wildcard, port, raw.strip().toLowerCase(Locale.ROOT));
  }

  /** Lower case, no brackets, no trailing dot. */
  static String normalHost(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    while (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }

  /**
   * Decides one destination: on the list, resolved here, and every address it resolves to public
   * (or named exactly). The address returned is the one to connect to, so a second lookup cannot
   * turn an allowed name into a private address.
   */
  public Decision decide(String rawHost, int port) {
    String host = normalHost(rawHost == null ? "" : rawHost);
    if (host.isEmpty() || port < 1 || port > 65535) {
      return new Decision(null, "not a host and port");
    }
    List<Entry> matching = entries.stream().filter(e -> e.matches(host, port)).toList();
    if (matching.isEmpty()) {
      return new Decision(null, "not on the allow list");
    }
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException | RuntimeException e) {
      return new Decision(null, "does not resolve");
    }
    if (addresses == null || addresses.length == 0) {
      return new Decision(null, "does not resolve");
    }
    for (InetAddress a : addresses) {
      String kind = special(a);
      if (kind != null && matching.stream().noneMatch(e -> e.exactly(host, port, a))) {
        return new Decision(null, "resolves to " + kind + " address " + a.getHostAddress()
            + " (allowed only when the list names exactly " + host + ":" + port + ")");
      }
    }
    return new Decision(addresses[0], null);
  }

  /** What kind of non-public address this is, or null for a public one. */
  static String special(InetAddress a) {
    if (a.isLoopbackAddress()) {
      return "a loopback";
    }
    if (a.isAnyLocalAddress()) {
      return "an unspecified";
    }
    if (a.isLinkLocalAddress()) {
      return "a link-local";
    }
    if (a.isMulticastAddress()) {
      return "a multicast";
    }
    if (a.isSiteLocalAddress()) {
      return "a private";
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      if (first == 0) {
        return "an unspecified";
      }
      if (first == 100 && second >= 64 && second < 128) {
        return "a private"; // carrier-grade NAT, 100.64.0.0/10
      }
      if (first >= 240) {
        return "a reserved";
      }
    } else if (a instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return "a unique-local";
      }
      boolean mapped = true;
      for (int i = 0; i < 10; i++) {
        mapped &= b[i] == 0;
      }
      if (mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
        try {
          return special(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
        } catch (UnknownHostException e) {
          return "an invalid";
        }
      }
    }
    return null;
  }

  static boolean isAddressLiteral(String host) {
    return host.matches("[0-9.]+") || host.contains(":");
  }
}
