/** The consumer runner contract (tandem-inbox) run with Kafka on both consumer databases. */
package io.tandem.kafka.contract;
