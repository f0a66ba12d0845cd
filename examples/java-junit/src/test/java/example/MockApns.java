package example;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code pushctl mock-apns} as a child process, with a client for its control API
 * (docs/mock-control.yaml). PUSHCTL names the binary (default: the repository's .build/debug/pushctl).
 */
final class MockApns implements AutoCloseable {
    /** One control API answer. */
    record Reply(int status, Object json) {
        @SuppressWarnings("unchecked")
        Map<String, Object> object() {
            return (Map<String, Object>) json;
        }
    }

    private final Process process;
    final Map<String, Object> credentials;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @SuppressWarnings("unchecked")
    MockApns() throws Exception {
        String pushctl = System.getenv().getOrDefault("PUSHCTL", "../../.build/debug/pushctl");
        Path directory = Files.createTempDirectory("mock-apns-junit-");
        process = new ProcessBuilder(pushctl, "mock-apns", "--port", "0", "--control-port", "0",
                "--write-credentials", directory.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.contains("listening on")) {
            // the control URL line comes first; credentials.json has everything
        }
        if (line == null) throw new IllegalStateException("pushctl mock-apns exited before listening");
        credentials = (Map<String, Object>) Json.parse(Files.readString(directory.resolve("credentials.json")));
    }

    String credential(String key) {
        return String.valueOf(credentials.get(key));
    }

    int port() {
        return ((Number) credentials.get("port")).intValue();
    }

    /** Calls the control API: {@code method path} with an optional JSON body. */
    Reply control(String method, String path, String body) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
        HttpRequest request = HttpRequest.newBuilder(URI.create(credential("control_url") + path))
                .header("Content-Type", "application/json")
                .method(method, publisher)
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        return new Reply(response.statusCode(), response.body().isEmpty() ? null : Json.parse(response.body()));
    }

    /** Adds a rule and returns its id. */
    long addRule(String json) throws Exception {
        Reply reply = control("POST", "/rules", json);
        if (reply.status() != 201) throw new IllegalStateException("rule refused: " + reply.json());
        return ((Number) reply.object().get("id")).longValue();
    }

    /** Waits (long poll) for {@code count} records of {@code token}; the records, or the 408 reply's. */
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> waitForRecords(int count, String token) throws Exception {
        Reply reply = control("GET", "/records/wait?count=" + count + "&timeout_ms=10000&token=" + token, null);
        if (reply.status() != 200) throw new AssertionError("records did not arrive: " + reply.json());
        return (List<Map<String, Object>>) reply.object().get("records");
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
