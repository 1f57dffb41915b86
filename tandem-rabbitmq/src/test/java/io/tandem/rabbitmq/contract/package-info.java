/** The consumer runner contract (tandem-inbox) run with RabbitMQ on both consumer databases. */
package io.tandem.rabbitmq.contract;
