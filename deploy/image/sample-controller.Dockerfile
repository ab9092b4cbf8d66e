# The sample controllers of the demo as an image, without the agent: a controller a user already runs.
# Build from the repository's root, after mvn -B -DskipTests package:
#   docker build -f deploy/image/sample-controller.Dockerfile -t resync-meter/sample-controller:0.1.0 .
FROM eclipse-temurin:17-jre
COPY examples/target/resync-meter-examples.jar /app/resync-meter-examples.jar
USER 65532:65532
ENTRYPOINT ["java", "-jar", "/app/resync-meter-examples.jar"]
CMD ["demo", "--in-cluster"]
