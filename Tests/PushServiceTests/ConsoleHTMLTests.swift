import Testing

@testable import PushService

@Suite("the console's HTML escaping")
struct ConsoleHTMLTests {
    @Test("markup characters become character references, NUL is dropped, other text is unchanged")
    func escape() {
        #expect(HTML.escape("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;")
        #expect(HTML.escape("a & b \"c\"") == "a &amp; b &quot;c&quot;")
        #expect(HTML.escape("nul\u{0}here") == "nulhere")
        #expect(HTML.escape("Rex 🐕 ünïcode") == "Rex 🐕 ünïcode")
        #expect(HTML.escape("") == "")
        // Already-escaped text is escaped again: the helper never guesses.
        #expect(HTML.escape("&amp;") == "&amp;amp;")
    }

    @Test("path components are percent-encoded byte by byte; unreserved characters stay")
    func urlComponent() {
        #expect(HTML.urlComponent("alice") == "alice")
        #expect(HTML.urlComponent("a/b?c=d&e") == "a%2Fb%3Fc%3Dd%26e")
        #expect(HTML.urlComponent("\"><x") == "%22%3E%3Cx")
        #expect(HTML.urlComponent("é") == "%C3%A9")
    }

    @Test("form bodies: + is a space, %XX escapes decode, a missing = gives an empty value")
    func form() {
        let form = ConsoleForm(body: Array("key=a%2Bb+c&csrf=&flag&key=second".utf8))
        #expect(form.value("key") == "a+b c")
        #expect(form.value("csrf") == "")
        #expect(form.value("flag") == "")
        #expect(form.text("csrf") == nil)
        #expect(form.value("missing") == nil)
    }
}
