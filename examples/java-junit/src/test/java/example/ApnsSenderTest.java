package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ApnsSender against {@code pushctl mock-apns}, programmed through the control API. */
class ApnsSenderTest {
    static final String PHONE = "ab".repeat(32);
    static final String TABLET = "cd".repeat(32);
    static MockApns mock;
    static ApnsSender sender;

    @BeforeAll
    static void startMock() throws Exception {
        mock = new MockApns();
        String password = Files.readString(Path.of(mock.credential("client_p12_password_file"))).trim();
        sender = new ApnsSender("127.0.0.1", mock.port(), mock.credential("bundle_id"), mock.credential("client_p12"),
                password.toCharArray(), mock.credential("ca"));
    }

    @AfterAll
    static void stopMock() throws Exception {
        mock.close();
    }

    @BeforeEach
    void reset() throws Exception {
        assertEquals(204, mock.control("POST", "/reset", null).status());
    }

    @Test
    void acceptedNotificationIsRecordedByteForByte() throws Exception {
        String payload = "{\"aps\":{\"alert\":\"Grüße, Rex 🐕\"}}";
        ApnsSender.Result result = sender.send(PHONE, "alert", payload);
        assertTrue(result.accepted(), "answer: " + result);
        Map<String, Object> record = mock.waitForRecords(1, PHONE).get(0);
        byte[] received = Base64.getDecoder().decode((String) record.get("payload_base64"));
        assertEquals(payload, new String(received, StandardCharsets.UTF_8));
        assertEquals(mock.credential("bundle_id"), record.get("client_certificate_uid"));
        @SuppressWarnings("unchecked")
        Map<String, Object> answer = (Map<String, Object>) record.get("answer");
        assertEquals(result.apnsId(), answer.get("apns_id"));
    }

    @Test
    void rejectionReasonsComeThrough() throws Exception {
        mock.addRule("{\"match\":{\"token\":\"" + PHONE + "\"},\"answer\":{\"reason\":\"Unregistered\",\"timestamp_ms\":1700000000000}}");
        mock.addRule("{\"match\":{\"push_type\":\"background\"},\"answer\":{\"reason\":\"TooManyRequests\"},\"times\":1}");
        mock.addRule("{\"match\":{\"payload\":{\"pointer\":\"/aps/alert\",\"equals\":\"boom\"}},\"answer\":{\"reason\":\"PayloadTooLarge\"}}");
        ApnsSender.Result gone = sender.send(PHONE, "alert", "{\"aps\":{}}");
        assertEquals(410, gone.status());
        assertEquals("Unregistered", gone.reason());
        ApnsSender.Result throttled = sender.send(TABLET, "background", "{\"aps\":{\"content-available\":1}}");
        assertEquals(429, throttled.status());
        assertEquals("TooManyRequests", throttled.reason());
        assertEquals(413, sender.send(TABLET, "alert", "{\"aps\":{\"alert\":\"boom\"}}").status());
        assertTrue(sender.send(TABLET, "alert", "{\"aps\":{\"alert\":\"calm\"}}").accepted());
    }

    @Test
    void goAwayMidTestThenANewConnection() throws Exception {
        assertTrue(sender.send(TABLET, "alert", "{\"aps\":{\"alert\":\"one\"}}").accepted());
        MockApns.Reply goaway = mock.control("POST", "/goaway", "{\"reason\":\"Shutdown\"}");
        assertEquals(200, goaway.status());
        assertEquals(1L, goaway.object().get("connections"));
        assertTrue(sender.send(TABLET, "alert", "{\"aps\":{\"alert\":\"two\"}}").accepted());
        List<Map<String, Object>> records = mock.waitForRecords(2, TABLET);
        Set<Object> connections = new HashSet<>();
        for (Map<String, Object> record : records) connections.add(record.get("connection"));
        assertEquals(2, connections.size(), "records: " + records);
    }

    @Test
    void faultKnobsApplyToTheNextRequest() throws Exception {
        assertEquals(200, mock.control("PATCH", "/knobs", "{\"rate_503\":1}").status());
        ApnsSender.Result unavailable = sender.send(PHONE, "alert", "{\"aps\":{}}");
        assertEquals(503, unavailable.status());
        assertEquals("ServiceUnavailable", unavailable.reason());
    }

    @Test
    void badControlRequestsGet400() throws Exception {
        MockApns.Reply reply = mock.control("POST", "/rules", "{\"answer\":{\"reason\":\"NoSuchReason\"}}");
        assertEquals(400, reply.status());
        @SuppressWarnings("unchecked")
        Map<String, Object> error = (Map<String, Object>) reply.object().get("error");
        assertEquals("bad_request", error.get("code"));
    }
}
