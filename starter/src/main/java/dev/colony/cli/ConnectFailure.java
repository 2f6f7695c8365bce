package dev.colony.cli;

import dev.colony.config.Problem;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.security.cert.CertificateExpiredException;
import java.util.Locale;

/**
 * Turns a failed first call to Temporal into one line that names the cause and what to check.
 * gRPC reports TLS trouble as UNAVAILABLE with the real reason several causes deep (a handshake
 * alert, a certificate path error); those are read here so the user never sees the stack.
 */
final class ConnectFailure {
  private static final String TLS_FLAGS = "--tls-cert-path/--tls-key-path (or TEMPORAL_TLS_CLIENT_CERT_PATH/"
      + "TEMPORAL_TLS_CLIENT_KEY_PATH, or the profile's tls.client_cert_path/client_key_path)";

  private ConnectFailure() {}

  static String explain(StatusRuntimeException e, ClientProfile p) {
    String at = "Temporal at " + p.address();
    String causes = causeText(e).toLowerCase(Locale.ROOT);
    Status.Code code = e.getStatus().getCode();
    String desc = e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription();
    if (code == Status.Code.UNAUTHENTICATED || code == Status.Code.PERMISSION_DENIED) {
      if (p.apiKey() != null) {
        return at + " refused the API key (" + code + ": " + Problem.printable(desc, 120) + "): check that the key "
            + "(--api-key / TEMPORAL_API_KEY / the profile's api_key) is current and may use namespace '"
            + p.namespace() + "'.";
      }
      return at + " requires credentials (" + code + "): set an API key (TEMPORAL_API_KEY) or a client certificate ("
          + TLS_FLAGS + ").";
    }
    if (code == Status.Code.NOT_FOUND && desc.toLowerCase(Locale.ROOT).contains("namespace")) {
      return "namespace '" + p.namespace() + "' does not exist at " + p.address() + ": check --namespace / TEMPORAL_NAMESPACE.";
    }
    if (p.tls()) {
      if (causes.contains("not an ssl/tls record") || causes.contains("notsslrecordexception")) {
        return at + " does not speak TLS, but this client uses " + p.describe() + ": connect without TLS "
            + "(--tls=false / TEMPORAL_TLS=false, no API key or certificates), or check the address.";
      }
      Throwable expired = find(e, CertificateExpiredException.class);
      if (expired != null) {
        return at + " presented an expired certificate (" + Problem.printable(expired.getMessage(), 120)
            + "): the server's certificate must be renewed.";
      }
      if (causes.contains("no subject alternative") || causes.contains("no name matching")) {
        return at + ": the server's certificate is not issued for '" + expectedName(p) + "' ("
            + Problem.printable(firstMatch(e, "subject alternative", "name matching"), 120)
            + "): set --tls-server-name / TEMPORAL_TLS_SERVER_NAME to the name it carries.";
      }
      if (causes.contains("pkix path") || causes.contains("unable to find valid certification path")
          || causes.contains("certpathvalidatorexception") || causes.contains("signature check failed")) {
        return at + ": its certificate is not signed by a CA this client trusts: give the CA that signed it with "
            + "--tls-ca-path (TEMPORAL_TLS_SERVER_CA_CERT_PATH, or the profile's tls.server_ca_cert_path).";
      }
      if (causes.contains("certificate_required") && p.clientCertificate()) {
        // The TLS client offers a certificate only when its issuer is one the server named.
        return at + " refused the client certificate: it accepts only certificates signed by its own CA, and this "
            + "one is not (so it was not even sent). Check " + TLS_FLAGS + ".";
      }
      if (causes.contains("certificate_required") || (causes.contains("bad_certificate") && !p.clientCertificate())
          || (causes.contains("handshake_failure") && !p.clientCertificate())) {
        return at + " requires a client certificate (mTLS) and this client has none: set " + TLS_FLAGS + ".";
      }
      if (causes.contains("certificate_expired")) {
        return at + " refused the client certificate: it has expired. Issue a new one and point " + TLS_FLAGS + " at it.";
      }
      if (causes.contains("unknown_ca") || causes.contains("bad_certificate") || causes.contains("certificate_unknown")
          || causes.contains("decrypt_error") || causes.contains("handshake_failure")) {
        return at + " refused the client certificate (" + alert(causes) + "): it is expired, not yet valid, or not "
            + "signed by a CA the server trusts. Check " + TLS_FLAGS + ".";
      }
      if (causes.contains("closed while performing tls negotiation")) {
        return at + " closed the connection during the TLS handshake: check that this is a Temporal frontend's "
            + "address and that the server has TLS on.";
      }
      if (causes.contains("sslhandshakeexception") || causes.contains("sslexception")) {
        return at + ": the TLS handshake failed (" + Problem.printable(firstMatch(e, "ssl", "tls", "handshake"), 160)
            + "). Check the address and the TLS settings (" + p.describe() + ").";
      }
    } else if (closedBeforeAnswering(e, p)) {
      return at + " closed the connection before answering: it probably requires TLS. Set --tls (TEMPORAL_TLS=true), "
          + "and for mTLS " + TLS_FLAGS + ".";
    }
    boolean unknownHost = desc.startsWith("Unable to resolve host");
    if (unknownHost) {
      return "cannot reach Temporal at " + p.address() + " (unknown host "
          + desc.substring("Unable to resolve host".length()).strip() + "). Check --address / TEMPORAL_ADDRESS.";
    }
    long waited = Temporal.CONNECT_CHECK.toSeconds();
    if (code == Status.Code.DEADLINE_EXCEEDED && p.tls()) {
      return at + " did not answer within " + waited + " s over " + p.describe() + ": check that the address is the "
          + "server's TLS port and that it is running.";
    }
    if (code == Status.Code.DEADLINE_EXCEEDED) {
      // It took the connection (an absent server refuses it at once) but gave no answer.
      return at + " accepted the connection but did not answer within " + waited + " s: it is starting or too busy, "
          + "or the address is not a Temporal frontend's (--address / TEMPORAL_ADDRESS).";
    }
    return "cannot reach Temporal at " + p.address() + " (" + code + "). Start one with './colony server' (or "
        + "bin/cluster.sh up, or see docker-compose.temporal.yml), or point --address / $TEMPORAL_ADDRESS at yours.";
  }

  /** A plaintext connection the server closed before answering: it may want TLS, or it may have died. */
  static boolean closedBeforeAnswering(StatusRuntimeException e, ClientProfile p) {
    if (p.tls() || e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
      return false;
    }
    String desc = e.getStatus().getDescription() == null ? "" : e.getStatus().getDescription();
    String causes = causeText(e).toLowerCase(Locale.ROOT);
    return desc.contains("Network closed") || desc.contains("Connection closed")
        || causes.contains("connection reset") || causes.contains("first received frame was not settings")
        || causes.contains("http/1") || causes.contains("http2exception");
  }

  /** A certificate or key that TLS could not load (bad PEM, wrong file). */
  static String tlsSetup(RuntimeException e) {
    String why = causeText(e);
    return "TLS: cannot load the client certificate, key or CA (" + Problem.printable(lastMessage(e), 160)
        + "): each must be a PEM file; the key an unencrypted PKCS#8 or PKCS#1 private key"
        + (why.contains("FileNotFound") || why.contains("NoSuchFile") ? " (a file is missing)" : "") + ".";
  }

  private static String alert(String causes) {
    int i = causes.indexOf("received fatal alert: ");
    if (i < 0) {
      return "TLS alert";
    }
    String rest = causes.substring(i + "received fatal alert: ".length());
    int end = 0;
    while (end < rest.length() && (Character.isLetter(rest.charAt(end)) || rest.charAt(end) == '_')) {
      end++;
    }
    return "alert " + rest.substring(0, end);
  }

  private static String expectedName(ClientProfile p) {
    String override = p.config().getTls() == null ? null : p.config().getTls().getServerName();
    return override != null && !override.isEmpty() ? override : host(p.address());
  }

  private static String host(String address) {
    int colon = address.lastIndexOf(':');
    return colon < 0 ? address : address.substring(0, colon);
  }

  /** Every cause's class name and message, one per line. */
  private static String causeText(Throwable e) {
    StringBuilder s = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      s.append(t.getClass().getName()).append(": ").append(t.getMessage()).append('\n');
      for (Throwable sup : t.getSuppressed()) {
        s.append(sup.getClass().getName()).append(": ").append(sup.getMessage()).append('\n');
      }
    }
    return s.toString();
  }

  private static String firstMatch(Throwable e, String... words) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (m == null) {
        continue;
      }
      String lower = m.toLowerCase(Locale.ROOT);
      for (String w : words) {
        if (lower.contains(w)) {
          return m;
        }
      }
    }
    return lastMessage(e);
  }

  private static String lastMessage(Throwable e) {
    String m = String.valueOf(e.getMessage());
    for (Throwable t = e.getCause(); t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null) {
        m = t.getMessage();
      }
    }
    return m;
  }

  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
