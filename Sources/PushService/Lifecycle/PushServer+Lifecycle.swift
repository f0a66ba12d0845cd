import PushHTTP
import PushHTTP1
import PushIO
import PushStore
import PushStoreSQL

extension PushServer {
    /// Answers one request unless the server is draining (503 then).
    static func serve(
        _ request: HTTPServerRequest, api: PushAPI, router: APIRouter, console: PushConsole,
        gate: RequestGate
    ) async -> HTTPResponse {
        guard gate.enter() else {
            return APIError(status: 503, code: "shutting_down", message: "the server is shutting down").response
        }
        defer { gate.leave() }
        if PushConsole.owns(request.path) { return await console.handle(request) }
        return await api.handle(request, router: router)
    }

    /// Reads the listener's TLS certificate, key and client CA again (SIGHUP); new connections use them,
    /// open ones keep theirs. A file that cannot be used leaves the old ones in place and throws why.
    public func reloadTLS() throws(ConfigurationError) {
        guard let tls = http.tls else { return }
        try ListenerTLS.reload(tls, configuration.tls, logger: logger)
    }

    /// What SIGHUP does: reloads the listener's TLS files, the API keys, every app's APNs credential (see
    /// `PushAppSet.reload`) and the configuration file's webhook endpoints; parts that fail keep what they
    /// had. Returns each app's outcome.
    @discardableResult
    public func reload() async -> [PushAppReload] {
        await reloader.reload().apps
    }

    /// Makes reloads read the configuration through `load` (the launcher re-reads file, environment and flags).
    public func setReloadSource(_ load: @escaping @Sendable () throws -> PushServiceConfiguration) {
        reloader.setSource(load)
    }

    /// Stops accepting requests, lets in-flight requests and sends finish until `deadline`,
    /// closes the APNs senders and stops the HTTP loop. Unfinished sends stay in the outbox for the next start.
    public func shutdown(deadline: Duration? = nil) async {
        let deadline = deadline ?? configuration.shutdownDeadline
        logger.info("server.stopping", [("deadline_s", "\(deadline / .seconds(1))")])
        await gate.drain(deadline: deadline)
        http.close()
        background.cancel()
        await worker.stop(deadline: deadline)
        await senders.shutdown(deadline: deadline)
        (repositories.database as? PostgresDatabase)?.close()
        loop.shutdown()
        logger.info("server.stopped")
    }
}
