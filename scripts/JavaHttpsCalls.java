// Java's own HTTP client (java.net.http, JDK 11 and later) through an HTTPS forward proxy (the
// recording proxy or the replay server), once over HTTP/1.1 and once over HTTP/2 (offered by ALPN
// inside the tunnel), trusting only the certificate authority in CA_FILE. Each call prints the
// client, the HTTP version it spoke, the status and the body, one line each, so a test can compare
// what it heard through the recording proxy and on replay. Run from its source, no build step:
//
//     java scripts/JavaHttpsCalls.java PROXY_URL CA_FILE BASE_URL
import java.io.FileInputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public class JavaHttpsCalls {
    public static void main(String[] args) throws Exception {
        URI proxy = URI.create(args[0]);
        SSLContext tls = trustingOnly(args[1]);
        String base = args[2];
        for (HttpClient.Version version : new HttpClient.Version[] {HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2}) {
            HttpClient client = HttpClient.newBuilder()
                .version(version)
                .sslContext(tls)
                .proxy(ProxySelector.of(new InetSocketAddress(proxy.getHost(), proxy.getPort())))
                .connectTimeout(Duration.ofSeconds(30))
                .build();
            String path = version == HttpClient.Version.HTTP_2 ? "/via-java-h2" : "/via-java-http1";
            HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build();
            HttpResponse<String> answer = client.send(request, HttpResponse.BodyHandlers.ofString());
            System.out.println("java " + answer.version() + " " + answer.statusCode() + " " + answer.body().strip());
        }
    }

    /// A TLS context whose only trusted authority is the certificate in the PEM file at `path`.
    private static SSLContext trustingOnly(String path) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (FileInputStream pem = new FileInputStream(path)) {
            trusted.setCertificateEntry("tapedeck", CertificateFactory.getInstance("X.509").generateCertificate(pem));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        return tls;
    }
}
