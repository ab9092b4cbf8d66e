package dev.resyncmeter.examples.demo;

public final class Demo {
  public static void main(String[] args) {}
}
