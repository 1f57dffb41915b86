package io.tandem.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RedactionTest {

  static Stream<Arguments> credentials() {
    return Stream.of(
        // JDBC: the property in any case, PostgreSQL's and MariaDB's other forms
        Arguments.of(
            "jdbc:postgresql://db:5432/orders?user=app&password=hunter2",
            "jdbc:postgresql://db:5432/orders?user=app&password=***"),
        Arguments.of(
            "jdbc:postgresql://db:5432/orders?user=app&PASSWORD=hunter2&ssl=true",
            "jdbc:postgresql://db:5432/orders?user=app&PASSWORD=***&ssl=true"),
        Arguments.of(
            "jdbc:postgresql://db/orders?Password=hunter2&sslpassword=hunter2",
            "jdbc:postgresql://db/orders?Password=***&sslpassword=***"),
        Arguments.of(
            "jdbc:mariadb://db:3306/orders?user=app&password=hunter2;trustStorePassword=hunter2",
            "jdbc:mariadb://db:3306/orders?user=app&password=***;trustStorePassword=***"),
        Arguments.of(
            "jdbc:mariadb://address=(host=db)(port=3306)(user=app)(password=hunter2)/orders",
            "jdbc:mariadb://address=(host=db)(port=3306)(user=app)(password=***)/orders"),
        Arguments.of(
            "jdbc:mysql://app:hunter2@db:3306/orders", "jdbc:mysql://app:***@db:3306/orders"),
        Arguments.of(
            "jdbc:postgresql://db/orders?user=app&password=hun%26ter2",
            "jdbc:postgresql://db/orders?user=app&password=***"),
        // AMQP
        Arguments.of("amqp://guest:hunter2@rabbit:5672/", "amqp://guest:***@rabbit:5672/"),
        Arguments.of("AMQPS://app:hun@ter2@rabbit:5671/prod", "AMQPS://app:***@rabbit:5671/prod"),
        // NATS: user and password, a token, several servers
        Arguments.of("nats://app:hunter2@nats:4222", "nats://app:***@nats:4222"),
        Arguments.of("nats://hunter2@nats:4222", "nats://***@nats:4222"),
        Arguments.of(
            "nats://a:hunter2@n1:4222,tls://hunter2@n2:4222",
            "nats://a:***@n1:4222,tls://***@n2:4222"),
        // Redis: a password alone, ACL user and password, TLS
        Arguments.of("redis://:hunter2@cache:6379/0", "redis://:***@cache:6379/0"),
        Arguments.of("rediss://default:hunter2@cache:6380", "rediss://default:***@cache:6380"),
        Arguments.of("redis://hunter2@cache:6379", "redis://***@cache:6379"),
        // settings, JAAS, JSON, messages
        Arguments.of(
            "sasl.jaas.config=PlainLoginModule required username=\"app\" password=\"hunter2\";",
            "sasl.jaas.config=PlainLoginModule required username=\"app\" password=\"***\";"),
        Arguments.of("ssl.keystore.password=hunter2", "ssl.keystore.password=***"),
        Arguments.of("{\"password\":\"hunter2\"}", "{\"password\":\"***\"}"),
        Arguments.of("FATAL: token: hunter2 rejected", "FATAL: token: *** rejected"));
  }

  @ParameterizedTest
  @MethodSource("credentials")
  void masksEveryCredentialFormAndKeepsTheRest(String text, String expected) {
    assertThat(Redaction.redact(text)).isEqualTo(expected).doesNotContain("hunter2", "hun%26");
    assertThat(Redaction.containsSecret(text)).isTrue();
    assertThat(Redaction.redact(expected)).as("idempotent").isEqualTo(expected);
    assertThat(Redaction.containsSecret(expected)).isFalse();
  }

  @Test
  void leavesTextWithoutCredentialsAlone() {
    for (String plain :
        new String[] {
          "jdbc:postgresql://127.0.0.1:5432/test?user=postgres",
          "jdbc:mariadb://db:3306/orders?user=root",
          "amqp://guest@rabbit:5672/",
          "nats://127.0.0.1:4222",
          "redis://127.0.0.1:6379",
          "127.0.0.1:9092,127.0.0.1:9093",
          "user@example.com wrote 3 events"
        }) {
      assertThat(Redaction.redact(plain)).isEqualTo(plain);
      assertThat(Redaction.containsSecret(plain)).isFalse();
    }
    assertThat(Redaction.redact(null)).isNull();
  }
}
