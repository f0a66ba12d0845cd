package example;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The code under test: a small APNs sender on the JDK's own HTTP/2 client, authenticated with the
 * provider certificate in a .p12 (PKCS12 key store). A real backend points it at api.push.apple.com;
 * tests point it at {@code pushctl mock-apns}.
 */
public final class ApnsSender {
    /** What APNs answered: the status, the apns-id and, for a rejection, the reason. */
    public record Result(int status, String apnsId, String reason) {
        public boolean accepted() {
            return status == 200;
        }
    }

    private static final Pattern REASON = Pattern.compile("\"reason\"\\s*:\\s*\"([^\"]*)\"");

    private final HttpClient client;
    private final String baseUrl;
    private final String topic;

    /**
     * A sender for {@code host:port} presenting the identity in {@code p12Path}; {@code caPemPath}
     * (may be null) is a CA to trust instead of the JDK's default trust store.
     */
    public ApnsSender(String host, int port, String topic, String p12Path, char[] password, String caPemPath)
            throws Exception {
        KeyStore identity = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(p12Path)) {
            identity.load(in, password);
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(identity, password);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (caPemPath == null) {
            trust.init((KeyStore) null);
        } else {
            KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
            anchors.load(null, null);
            try (InputStream in = new FileInputStream(caPemPath)) {
                X509Certificate ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
                anchors.setCertificateEntry("apns-ca", ca);
            }
            trust.init(anchors);
        }
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_2)
                .sslContext(tls)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        this.baseUrl = "https://" + host + ":" + port;
        this.topic = topic;
    }

    /**
     * Sends {@code payloadJson} to {@code token}. A connection APNs closed (GOAWAY) before this
     * request was processed is not an answer: the request is sent once more, on a new connection.
     */
    public Result send(String token, String pushType, String payloadJson) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + "/3/device/" + token))
                .timeout(Duration.ofSeconds(30))
                .header("apns-topic", topic)
                .header("apns-push-type", pushType)
                .POST(HttpRequest.BodyPublishers.ofString(payloadJson, StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException closed) {
            response = client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        }
        String apnsId = response.headers().firstValue("apns-id").orElse(null);
        if (response.statusCode() == 200) {
            return new Result(200, apnsId, null);
        }
        Matcher reason = REASON.matcher(response.body());
        return new Result(response.statusCode(), apnsId, reason.find() ? reason.group(1) : "");
    }
}
